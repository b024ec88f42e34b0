import { execFile, spawn } from "node:child_process";
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
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

const scripts = fileURLToPath(new URL(".", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "caudal-install-deps-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Line = { at: number; text: string };

/** Runs a copy of install-deps.sh in a checkout of its own, with a slow stand-in for `npm ci`. */
function firstRun(npmSeconds: number): Promise<{ status: number | null; lines: Line[]; npmAt: number }> {
  const checkout = join(dir, "checkout");
  const bin = join(dir, "bin");
  mkdirSync(join(checkout, "scripts"), { recursive: true });
  mkdirSync(bin, { recursive: true });
  for (const f of ["install-deps.sh", "progress.sh"])
    copyFileSync(join(scripts, f), join(checkout, "scripts", f));
  writeFileSync(join(checkout, "package-lock.json"), "{}");
  const npmLog = join(dir, "npm.log");
  writeFileSync(
    join(bin, "npm"),
    `#!/bin/sh\necho "$*" > ${npmLog}\nsleep ${npmSeconds}\nmkdir -p node_modules\n`,
  );
  chmodSync(join(bin, "npm"), 0o755);
  const started = performance.now();
  const child = spawn("bash", [join(checkout, "scripts/install-deps.sh")], {
    env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, CAUDAL_PROGRESS_EVERY: "2" },
  });
  const lines: Line[] = [];
  const collect = (b: Buffer) => {
    for (const text of b.toString().split("\n").filter(Boolean))
      lines.push({ at: performance.now() - started, text });
  };
  child.stdout.on("data", collect);
  child.stderr.on("data", collect);
  return new Promise((resolve) =>
    child.once("close", (status) => resolve({ status, lines, npmAt: performance.now() - started })),
  );
}

describe("scripts/install-deps.sh on a first run", () => {
  it("says it runs npm ci, then keeps saying so while npm works", async () => {
    const { status, lines, npmAt } = await firstRun(5);
    expect(status, JSON.stringify(lines)).toBe(0);
    expect(readFileSync(join(dir, "npm.log"), "utf8")).toMatch(/^ci /);
    expect(lines[0]?.text).toMatch(/installing dependencies \(npm ci/);
    expect(lines[0]?.at).toBeLessThan(2000);
    const during = lines.filter((l) => /npm ci: still running \(\d+ s\)/.test(l.text) && l.at < npmAt);
    expect(during.length, JSON.stringify(lines)).toBeGreaterThanOrEqual(2);
    expect(lines.at(-1)?.text).toMatch(/dependencies installed in \d+ s/);
  });
});

/** npm's spinner frames on a Unicode terminal (U+2800 braille patterns). */
const SPINNER = /[\u2800-\u28ff]/;

/**
 * A checkout with this repository's .npmrc and bootstrap scripts, whose project needs no package
 * (so the real npm ci needs no registry) and spends a few seconds in a postinstall script.
 */
function slowProject(): string {
  const checkout = mkdtempSync(join(dir, "project-"));
  mkdirSync(join(checkout, "scripts"));
  for (const f of ["install-deps.sh", "progress.sh"])
    copyFileSync(join(scripts, f), join(checkout, "scripts", f));
  copyFileSync(join(scripts, "..", ".npmrc"), join(checkout, ".npmrc"));
  const pkg = {
    name: "slow",
    version: "1.0.0",
    scripts: { postinstall: "sleep 3 && mkdir -p node_modules", hello: "echo hello" },
  };
  writeFileSync(join(checkout, "package.json"), JSON.stringify(pkg));
  writeFileSync(
    join(checkout, "package-lock.json"),
    JSON.stringify({
      name: "slow",
      version: "1.0.0",
      lockfileVersion: 3,
      requires: true,
      packages: { "": { name: "slow", version: "1.0.0", hasInstallScript: true } },
    }),
  );
  return checkout;
}

/**
 * Runs `command` in `cwd` with the real npm, on a terminal (util-linux `script` gives it a pty)
 * or on pipes: all it wrote, stdout and stderr together.
 */
async function run(command: string, cwd: string, terminal: boolean): Promise<string> {
  // (It has no dependency, so npm makes no node_modules: its postinstall does.)
  // No npm_config_* from a surrounding `npm test`: npm would take this repository as the project.
  const env = {
    PATH: process.env.PATH,
    HOME: join(cwd, "home"),
    npm_config_cache: join(cwd, "npm-cache"),
    CAUDAL_PROGRESS_EVERY: "1",
  };
  const [file, args] = terminal
    ? ["script", ["-qefc", command, "/dev/null"]]
    : ["bash", ["-c", `(${command}) 2>&1`]];
  const { stdout } = await promisify(execFile)(file, args, { cwd, env, timeout: 60_000 });
  return stdout;
}

describe("npm's output on a first run, with the real npm", () => {
  for (const terminal of [true, false]) {
    it(`${terminal ? "on a terminal" : "piped"}: whole lines, and no spinner glyph in them or after them`, async () => {
      const checkout = slowProject();
      const out = await run("bash scripts/install-deps.sh && npm run hello", checkout, terminal);
      const lines = out.split(/\r?\n/);
      expect(out, JSON.stringify(out)).not.toMatch(SPINNER);
      // npm's spinner erases its frame with "ESC[1G ESC[0K" (on an ASCII terminal its frames are | / - \).
      expect(out).not.toContain("\u001b[0K");
      // Each progress line starts a line of its own: nothing drawn before it.
      const progress = lines.filter((l) => l.includes("npm ci: still running"));
      expect(progress.length, JSON.stringify(out)).toBeGreaterThanOrEqual(2);
      for (const line of progress) expect(line).toMatch(/^npm ci: still running \(\d+ s\)$/);
      expect(lines).toContainEqual(expect.stringMatching(/^== dependencies installed in \d+ s$/));
      expect(lines).toContain("hello");
    }, 90_000);
  }
});
