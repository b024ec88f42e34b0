import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildConsole, type ConsoleBuild } from "../build/console-bundle.ts";

let built: Promise<{ dir: string; build: ConsoleBuild }> | undefined;

/**
 * The console built from this checkout into a folder of this test process (for CONSOLE_DIR), once
 * per process: tests never share or race on dist/console.
 */
export function builtConsole(): Promise<{ dir: string; build: ConsoleBuild }> {
  built ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), "caudal-console-"));
    process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
    return { dir, build: await buildConsole(dir) };
  })();
  return built;
}
