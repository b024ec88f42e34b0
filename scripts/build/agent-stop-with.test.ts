import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "../..");
const script = join(root, "scripts", "build", "agent.ts");

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * The server runs the agent build in a process group of its own, which a SIGKILL of the server
 * does not reach: the build's `--stop-with PID` makes it end once its parent is gone. Here a shell
 * stands in for the server (its own process group, as the server's build is), and is killed -9.
 */
describe("npm run build:agent -- --stop-with PID", () => {
  const out = mkdtempSync(join(tmpdir(), "caudal-stop-with-"));
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it("stops once its parent is killed, instead of building on as an orphan", async () => {
    const shell = spawn(
      "sh",
      [
        "-c",
        `"$0" "$1" --stop-with $$ --out "$2" --target linux-x86_64 & echo $!; wait`,
        process.execPath,
        script,
        out,
      ],
      { stdio: ["ignore", "pipe", "inherit"], detached: true },
    );
    const build = await new Promise<number>((resolve, reject) => {
      shell.stdout.once("data", (chunk: Buffer) => resolve(Number(chunk.toString().trim())));
      shell.once("error", reject);
    });
    expect(alive(build)).toBe(true);
    await new Promise((r) => setTimeout(r, 500));
    expect(alive(build)).toBe(true);
    shell.kill("SIGKILL");
    // It checks its parent every second; a whole build of this one target takes about 10 s on an
    // idle machine here, and ends by writing the manifest, which a stopped build never writes.
    await expect.poll(() => alive(build), { timeout: 5_000, interval: 100 }).toBe(false);
    expect(existsSync(join(out, "manifest.json"))).toBe(false);
  }, 30_000);

  it("refuses a --stop-with that is not a process id", () => {
    const run = spawnSync(process.execPath, [script, "--stop-with", "abc", "--out", out], {
      encoding: "utf8",
    });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('--stop-with takes a process id, not "abc"');
  });
});
