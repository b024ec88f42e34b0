import { spawn } from "node:child_process";
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
