import { execFileSync } from "node:child_process";
import { chmodSync, copyFileSync, writeFileSync } from "node:fs";
import { arch } from "node:os";
import { join, relative } from "node:path";
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

/** `strip` for the target's ELF; the official Windows node.exe carries no symbols (they ship as a PDB). */
const STRIP: Record<AgentTarget, string | null> = {
  "linux-x86_64": "strip",
  "linux-aarch64": "aarch64-linux-gnu-strip",
  "windows-x64": null,
};

/**
 * One single executable: a SEA blob of the bundle and the target's assets, injected with postject
 * into a stripped copy of the official Node binary. V8's code cache is architecture-specific, so
 * only the host's own target gets one (it shortens start-up).
 */
export function buildExecutable(o: {
  target: AgentTarget;
  bundleFile: string;
  nodeBinary: string;
  workDir: string;
  output: string;
}): void {
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
      assets: nativeAssets(o.target),
    }),
  );
  execFileSync(process.execPath, ["--experimental-sea-config", seaConfig], {
    cwd: o.workDir,
    stdio: ["ignore", "ignore", "pipe"],
  });

  copyFileSync(o.nodeBinary, o.output);
  chmodSync(o.output, 0o755);
  const strip = STRIP[o.target];
  if (strip) execFileSync(strip, ["--strip-all", o.output]);
  const postject = join(ROOT, "node_modules", "postject", "dist", "cli.js");
  execFileSync(process.execPath, [postject, o.output, "NODE_SEA_BLOB", blob, "--sentinel-fuse", SEA_FUSE], {
    stdio: ["ignore", "ignore", "pipe"],
  });
}
