import { spawnSync } from "node:child_process";
import { mosquittoMissing } from "../../server/broker/mosquitto-clients.ts";
import { SynDropPeer } from "../sim/black-hole.ts";
import { pymodbusSkipReason, socatSkipReason } from "../sim/pymodbus-peer.ts";
import type { PeerProbe } from "./require-peer.ts";

/** Debian's chromium; scripts/debian-packages.sh installs it. */
export const CHROMIUM = "/usr/bin/chromium";

export function chromiumMissing(): string | null {
  const run = spawnSync(CHROMIUM, ["--version"], { encoding: "utf8", timeout: 20_000 });
  if (run.status === 0) return null;
  const why = run.error ? run.error.message : run.stderr.trim() || `exit status ${run.status}`;
  return `${CHROMIUM} --version failed (${why}; scripts/debian-packages.sh installs chromium as root)`;
}

/** What node-gyp needs to build a native addon (besides python3). */
export function compilerMissing(): string | null {
  const absent = ["g++", "make"].filter((cmd) => spawnSync("sh", ["-c", `command -v ${cmd}`]).status !== 0);
  return absent.length === 0
    ? null
    : `${absent.join(", ")} not found (scripts/debian-packages.sh installs g++ and make as root)`;
}

/** Debian's systemd: systemd-analyze checks the unit files; systemd-notify is how both programs talk to it. */
export function systemdToolsMissing(): string | null {
  for (const tool of ["systemd-analyze", "systemd-notify"]) {
    const run = spawnSync(tool, ["--version"], { encoding: "utf8", timeout: 20_000 });
    if (run.status !== 0) {
      const why = run.error ? run.error.message : run.stderr.trim() || `exit status ${run.status}`;
      return `${tool} --version failed (${why}; scripts/debian-packages.sh installs systemd as root)`;
    }
  }
  return null;
}

/**
 * Every peer program the tests drive, by the Debian package that provides it. scripts/test.sh
 * checks them all after scripts/debian-packages.sh ran (scripts/testing/check-peers.ts).
 */
export const PEERS: Readonly<Record<string, PeerProbe>> = {
  "python3-pymodbus": pymodbusSkipReason,
  python3: () => SynDropPeer.missing(),
  socat: socatSkipReason,
  "mosquitto-clients": mosquittoMissing,
  chromium: chromiumMissing,
  "g++ and make": compilerMissing,
  systemd: systemdToolsMissing,
};
