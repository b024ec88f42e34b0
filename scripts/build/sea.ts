import { execFile } from "node:child_process";
import { chmodSync, copyFileSync, writeFileSync } from "node:fs";
import { arch } from "node:os";
import { join, relative } from "node:path";
import { promisify } from "node:util";
import type { AgentTarget } from "../../shared/distribution/agent-manifest.ts";
import { ROOT } from "./bundle-agent.ts";

/** The fuse Node's SEA support looks for (Node's documentation, "Single executable applications"). */
const SEA_FUSE = "NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2";

const SERIALPORT_PREBUILDS = join(ROOT, "node_modules", "@serialport", "bindings-cpp", "prebuilds");

/** Native addons each target carries as SEA assets (agent/native/native-addon.ts loads them). */
export function nativeAssets(target: AgentTarget): Record<string, string> {
  const serialport: Record<AgentTarget, string> = {
    "linux-x86_64": "linux-x64/@serialport+bindings-cpp.glibc.node",
    "linux-aarch64": "linux-arm64/@serialport+bindings-cpp.armv8.glibc.node",
    "windows-x64": "win32-x64/@serialport+bindings-cpp.node",
  };
  return { "native/serialport.node": join(SERIALPORT_PREBUILDS, serialport[target]) };
}

/**
 * V8 options every executable starts with (SEA `execArgv`; NODE_OPTIONS may add to them but may
 * not carry the last two). Measured with `npm run bench -- agent-binary` (10,000 tags at 1 s,
 * median RSS max of 3 runs), each on top of the ones before:
 *   --optimize-for-size  V8 grows the old generation less before a full GC: 116-170 MB from run to
 *                        run → 109 MB, steady; CPU 0.08 → 0.11 core.
 *   --max-opt=2          Maglev is the top tier, Turbofan never runs: its code, several MB of the
 *                        executable, is never paged in, nor its compilations kept: −8 MB
 *                        (96.6 → 88.2 MB), CPU unchanged (0.11 core).
 *   --max-semi-space-size=1  the young generation of systemd/caudal-agent.service, here too so the
 *                        Windows service and a start by hand run the same way.
 * --lite-mode (no optimizing tier at all) saved 3 MB more for twice the CPU (0.21 core).
 */
export const AGENT_EXEC_ARGV = ["--max-semi-space-size=1", "--optimize-for-size", "--max-opt=2"];

const run = promisify(execFile);

/** `strip` for the target's ELF; the official Windows node.exe carries no symbols (they ship as a PDB). */
const STRIP: Record<AgentTarget, string | null> = {
  "linux-x86_64": "strip",
  "linux-aarch64": "aarch64-linux-gnu-strip",
  "windows-x64": null,
};

/**
 * One single executable: a SEA blob of the bundle, its chunks and the target's assets, injected with postject
 * into a stripped copy of the official Node binary. V8's code cache is architecture-specific, so
 * only the host's own target gets one: 0.45 MB of the executable that shortens start-up and costs
 * no memory (without it, compiling the main script at start left 3 MB more RSS at 10,000 tags).
 * Its tools run as child processes without blocking: the build fetches Node runtimes meanwhile.
 */
export async function buildExecutable(o: {
  target: AgentTarget;
  bundleFile: string;
  /** JavaScript assets beside the main script: asset name → file (bundle-agent.ts, SEA_CHUNKS). */
  chunkFiles: Record<string, string>;
  nodeBinary: string;
  workDir: string;
  output: string;
}): Promise<void> {
  const hostTarget = arch() === "x64" ? "linux-x86_64" : arch() === "arm64" ? "linux-aarch64" : null;
  const blob = join(o.workDir, `${o.target}.blob`);
  const seaConfig = join(o.workDir, `${o.target}.sea.json`);
  writeFileSync(
    seaConfig,
    JSON.stringify({
      // Relative, so the blob names no path of the build machine.
      main: relative(o.workDir, o.bundleFile),
      output: blob,
      disableExperimentalSEAWarning: true,
      useSnapshot: false,
      useCodeCache: process.platform === "linux" && o.target === hostTarget,
      execArgv: AGENT_EXEC_ARGV,
      assets: { ...nativeAssets(o.target), ...o.chunkFiles },
    }),
  );
  // V8 checks a code cache against the flags it was made with: the blob is made under the same
  // options the executable starts with, or V8 rejects the cache at every start.
  await run(process.execPath, [...AGENT_EXEC_ARGV, "--experimental-sea-config", seaConfig], {
    cwd: o.workDir,
  });

  copyFileSync(o.nodeBinary, o.output);
  chmodSync(o.output, 0o755);
  const strip = STRIP[o.target];
  if (strip) await run(strip, ["--strip-all", o.output]);
  const postject = join(ROOT, "node_modules", "postject", "dist", "cli.js");
  await run(process.execPath, [postject, o.output, "NODE_SEA_BLOB", blob, "--sentinel-fuse", SEA_FUSE], {
    maxBuffer: 16 * 1024 * 1024,
  });
}
