import { describe, it, type TestFunction } from "vitest";

declare module "vitest" {
  interface TaskMeta {
    /** Why the test did not run; scripts/testing/skip-summary.ts prints it at the end of the run. */
    skipReason?: string;
  }
}

/** Why a peer program cannot be used on this machine, or null when it can. */
export type PeerProbe = () => string | null;

/**
 * A program written by others that some tests drive (pymodbus, socat, mosquitto clients, chromium).
 * Tests register through it instead of `skipIf`: outside CI a missing peer skips them with the
 * reason, and under CI=true it fails them with the reason, so CI never goes green on tests it did
 * not run (issue 8 §1).
 */
export type Peer = {
  readonly name: string;
  /** Why the peer is missing (probed once, when the test file loads), or null. */
  readonly missing: string | null;
  describe(title: string, body: () => void): void;
  it(title: string, fn: TestFunction, timeout?: number): void;
};

/** CI=true as GitHub Actions, GitLab and most CI services set it. */
export function underCi(env: NodeJS.ProcessEnv = process.env): boolean {
  const value = env.CI?.toLowerCase();
  return value === "true" || value === "1";
}

export function requirePeer(name: string, probe: PeerProbe): Peer {
  const missing = probe();
  const reason = `missing peer ${name}: ${missing}`;
  const failure = () => {
    throw new Error(`CI=true, so a missing peer fails instead of skipping. ${reason}`);
  };
  return {
    name,
    missing,
    describe(title, body) {
      if (missing === null) describe(title, body);
      else if (underCi()) describe(title, () => it(`needs ${name}`, failure));
      else describe(title, { skip: true, meta: { skipReason: reason } }, body);
    },
    it(title, fn, timeout) {
      if (missing === null) it(title, fn, timeout);
      else if (underCi()) it(title, failure);
      else it(title, { skip: true, meta: { skipReason: reason } }, fn);
    },
  };
}
