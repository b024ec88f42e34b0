import { mkdirSync, rmSync, statSync } from "node:fs";
import type { AgentBuildManifest } from "../../shared/distribution/agent-manifest.ts";
import { buildAgentBinaries, DEFAULT_AGENT_DIST } from "../build/agent-binaries.ts";

const LOCK = `${DEFAULT_AGENT_DIST}.lock`;
const STALE_MS = 10 * 60_000;

/**
 * The single executables for tests: `npm run build:agent`'s output, built when missing or stale.
 * Test files run in parallel processes, so the build holds a lock folder; the others wait for it
 * and then find the build up to date.
 */
export async function builtAgentBinaries(): Promise<{ dir: string; manifest: AgentBuildManifest }> {
  mkdirSync(DEFAULT_AGENT_DIST, { recursive: true });
  for (;;) {
    try {
      mkdirSync(LOCK);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      // A lock left by a killed run is stale after STALE_MS (a full build takes about a minute).
      const since = statSync(LOCK, { throwIfNoEntry: false })?.mtimeMs;
      if (since !== undefined && Date.now() - since > STALE_MS)
        rmSync(LOCK, { force: true, recursive: true });
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  try {
    const manifest = await buildAgentBinaries({
      log: (line) => process.stderr.write(`build:agent: ${line}\n`),
    });
    return { dir: DEFAULT_AGENT_DIST, manifest };
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}
