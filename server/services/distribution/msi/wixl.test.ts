import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { runWixl } from "./wixl.ts";

/*
 * wixl runs with PATH alone (issue 28 §1): a `wixl` first on PATH that prints the environment it was
 * started with (/proc/self/environ, as execve gave it, before the shell adds its own variables).
 */
let bin: string;
const savedPath = process.env.PATH;

beforeAll(() => {
  bin = mkdtempSync(join(tmpdir(), "caudal-fake-wixl-"));
  const script = join(bin, "wixl");
  writeFileSync(script, "#!/bin/sh\ntr '\\0' '\\n' < /proc/$$/environ\n");
  chmodSync(script, 0o755);
  process.env.PATH = `${bin}:${savedPath ?? "/usr/bin:/bin"}`;
  process.env.CAUDAL_WIXL_ENV_PROBE = "server-secret";
});
afterAll(() => {
  process.env.PATH = savedPath;
  delete process.env.CAUDAL_WIXL_ENV_PROBE;
  if (bin) rmSync(bin, { recursive: true, force: true });
});

it("starts wixl with PATH and nothing else of the server's environment", async () => {
  expect(Object.keys(process.env).length).toBeGreaterThan(2);
  const run = await runWixl({
    cwd: bin,
    wxs: "product.wxs",
    out: "product.msi",
    timeoutMs: 10_000,
    signal: new AbortController().signal,
  });
  expect(run.ok, JSON.stringify(run)).toBe(true);
  expect(run.output.split("\n")).toEqual([`PATH=${process.env.PATH}`]);
});
