import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mosquittoMissing } from "../../server/broker/mosquitto-clients.ts";
import { SynDropPeer } from "../sim/black-hole.ts";
import { pymodbusSkipReason, socatSkipReason } from "../sim/pymodbus-peer.ts";
import { postgresMissing } from "./postgres.ts";
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

/** A probe for programs and files found by path; `pkg` names the Debian packages that bring them. */
export function filesMissing(files: readonly string[], pkg: string): PeerProbe {
  return () => {
    const absent = files.filter((f) => !existsSync(f));
    return absent.length === 0
      ? null
      : `${absent.join(", ")} not found (scripts/debian-packages.sh installs ${pkg} as root)`;
  };
}

/** Runs the aarch64 agent binary (DESIGN.md, "Agent distribution"). */
export const QEMU_AARCH64 = "/usr/bin/qemu-aarch64-static";
export const ARM64_SYSROOT = "/usr/aarch64-linux-gnu";
export const qemuAarch64Missing = filesMissing(
  [QEMU_AARCH64, `${ARM64_SYSROOT}/lib/ld-linux-aarch64.so.1`, `${ARM64_SYSROOT}/lib/libstdc++.so.6`],
  "qemu-user-static, libc6-arm64-cross and libstdc++6-arm64-cross",
);

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

/** Builds the Windows MSI (the server runs it) and checks it (DESIGN.md, "Windows MSI"). */
export const wixlMissing = filesMissing(["/usr/bin/wixl"], "wixl");
export const msitoolsMissing = filesMissing(["/usr/bin/msiinfo", "/usr/bin/msiextract"], "msitools");

/** The Linux install script's peers: its downloaders and its linter. */
export const curlMissing = filesMissing(["/usr/bin/curl"], "curl");
export const wgetMissing = filesMissing(["/usr/bin/wget"], "wget");
export const shellcheckMissing = filesMissing(["/usr/bin/shellcheck"], "shellcheck");

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
  "qemu-user-static (arm64)": qemuAarch64Missing,
  curl: curlMissing,
  wget: wgetMissing,
  shellcheck: shellcheckMissing,
  "binutils-aarch64-linux-gnu": filesMissing(
    ["/usr/bin/aarch64-linux-gnu-strip"],
    "binutils-aarch64-linux-gnu",
  ),
  systemd: systemdToolsMissing,
  "postgresql-15": postgresMissing,

  wixl: wixlMissing,
  msitools: msitoolsMissing,
};
