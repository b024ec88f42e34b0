import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

const SCRIPT = fileURLToPath(new URL("./debian-packages.sh", import.meta.url));
/** What a fresh Debian machine had after the old script: the packages, not their recommends. */
const FRESH = [
  "chromium",
  "python3-pymodbus",
  "socat",
  "mosquitto-clients",
  "g++",
  "make",
  "qemu-user-static",
  "libc6-arm64-cross",
  "libstdc++6-arm64-cross",
  "binutils-aarch64-linux-gnu",
  "wixl",
  "msitools",
  "shellcheck",
  "curl",
  "wget",
  "systemd",
  "postgresql-15",
];

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/**
 * Runs the script against stand-ins for dpkg-query, apt-get and id (first on PATH): `installed`
 * are the packages dpkg reports, apt-get records its arguments and exits with `aptStatus`.
 */
function run(options: { installed: string[]; uid?: number; aptStatus?: number; ci?: boolean }) {
  const dir = mkdtempSync(join(tmpdir(), "caudal-debian-packages-"));
  dirs.push(dir);
  const log = join(dir, "apt.log");
  const stub = (name: string, body: string) => {
    writeFileSync(join(dir, name), `#!/bin/sh\n${body}\n`);
    chmodSync(join(dir, name), 0o755);
  };
  stub(
    "dpkg-query",
    `for a; do pkg=$a; done; for p in ${options.installed.join(" ")}; do [ "$p" = "$pkg" ] && { printf 'install ok installed'; exit 0; }; done; exit 1`,
  );
  stub("apt-get", `echo "$*" >> ${log}; [ "$1" = update ] && exit 0; exit ${options.aptStatus ?? 0}`);
  stub("id", `echo ${options.uid ?? 0}`);
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${dir}:${process.env.PATH}` };
  delete env.CI;
  if (options.ci) env.CI = "true";
  const res = spawnSync("bash", [SCRIPT], { env, encoding: "utf8" });
  let apt = "";
  try {
    apt = readFileSync(log, "utf8");
  } catch {}
  return { status: res.status, out: res.stdout + res.stderr, apt };
}

describe("scripts/debian-packages.sh", () => {
  it("installs pymodbus's serial modules too, which Debian only recommends", () => {
    const { status, apt } = run({ installed: FRESH });
    expect(status).toBe(0);
    const install = apt.split("\n").find((l) => l.startsWith("install"));
    expect(install).toContain("python3-serial-asyncio");
    expect(install).toContain("python3-serial");
    expect(install).not.toContain("chromium");
  });

  it("does nothing when every package is there", () => {
    const { status, apt } = run({
      installed: [...FRESH, "python3-serial-asyncio", "python3-serial"],
    });
    expect(status).toBe(0);
    expect(apt).toBe("");
  });

  it("fails loudly under CI=true when it cannot install, and says why", () => {
    const failed = run({ installed: FRESH, aptStatus: 100, ci: true });
    expect(failed.status).toBe(1);
    expect(failed.out).toContain("could not install python3-serial-asyncio python3-serial");
    const notRoot = run({ installed: FRESH, uid: 1000, ci: true });
    expect(notRoot.status).toBe(1);
    expect(notRoot.out).toContain("needs root");
    expect(notRoot.apt).toBe("");
  });

  it("outside CI only warns, so the tests that need the package skip and say why", () => {
    const { status, out } = run({ installed: FRESH, uid: 1000 });
    expect(status).toBe(0);
    expect(out).toContain("not installing python3-serial-asyncio python3-serial");
  });
});
