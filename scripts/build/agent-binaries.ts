import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  createReadStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join, relative } from "node:path";
import { targetDoneLine, targetStartLine } from "../../shared/distribution/agent-build-status.ts";
import {
  AGENT_MANIFEST_FILE,
  AGENT_TARGETS,
  type AgentArtifact,
  type AgentBuildManifest,
  type AgentTarget,
  agentArtifactFile,
  agentBuildManifestSchema,
  WINSW_FILE,
} from "../../shared/distribution/agent-manifest.ts";
import { lockOutput } from "./build-lock.ts";
import { bundleAgent, packageVersion, ROOT } from "./bundle-agent.ts";
import { NODE_VERSION, nodeRuntime } from "./node-runtime.ts";
import { AGENT_EXEC_ARGV, buildExecutable, nativeAssets } from "./sea.ts";
import { copyWinsw, winswBytes } from "./winsw.ts";

export const DEFAULT_AGENT_DIST = join(ROOT, "dist", "agent");

export type BuildOptions = {
  outDir?: string;
  targets?: readonly AgentTarget[];
  /** Build even when the inputs equal the last build's. */
  force?: boolean;
  /** Also measure each file's size compressed with xz (slow: for the figures). */
  sizes?: boolean;
  log?: (line: string) => void;
};

function gitCommit(): string {
  try {
    return execFileSync("git", ["rev-parse", "--short=12", "HEAD"], { cwd: ROOT, encoding: "utf8" }).trim();
  } catch {
    return "unknown";
  }
}

export function sha256File(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash("sha256");
    createReadStream(file)
      .on("data", (chunk) => hash.update(chunk))
      .on("end", () => resolve(hash.digest("hex")))
      .on("error", reject);
  });
}

export function readManifest(outDir: string): AgentBuildManifest | null {
  const file = join(outDir, AGENT_MANIFEST_FILE);
  if (!existsSync(file)) return null;
  try {
    const parsed = agentBuildManifestSchema.safeParse(JSON.parse(readFileSync(file, "utf8")));
    return parsed.success ? parsed.data : null;
  } catch {
    return null; // half-written by an older build, or edited by hand: rebuilt
  }
}

function sameSize(file: string, bytes: number): boolean {
  return statSync(file, { throwIfNoEntry: false })?.size === bytes;
}

/** The last build still stands when its inputs are these and each file is still what it recorded. */
function upToDate(
  manifest: AgentBuildManifest | null,
  inputs: string,
  targets: readonly AgentTarget[],
  outDir: string,
) {
  if (!manifest || manifest.inputs_sha256 !== inputs) return false;
  if (targets.includes("windows-x64")) {
    const winsw = manifest.winsw;
    if (!winsw || !sameSize(join(outDir, winsw.file), winsw.bytes)) return false;
  }
  return targets.every((t) => {
    const a = manifest.artifacts.find((x) => x.target === t);
    const file = join(outDir, agentArtifactFile(t));
    return a !== undefined && existsSync(file) && statSync(file).size === a.bytes;
  });
}

/** Writes the manifest by rename: a reader sees the last one whole, never a half-written one. */
function writeManifest(outDir: string, manifest: AgentBuildManifest): void {
  const manifestFile = join(outDir, AGENT_MANIFEST_FILE);
  writeFileSync(`${manifestFile}.partial`, `${JSON.stringify(manifest, null, 2)}\n`);
  renameSync(`${manifestFile}.partial`, manifestFile);
}

/**
 * `npm run build:agent`: one esbuild bundle, then one single executable per target, each with its
 * SHA-256 in manifest.json. Reuses the last build when nothing it is made from changed. The
 * manifest is written after each executable, in the order of `targets`, so each one is served as
 * soon as it is made; a build stopped part-way keeps the executables it finished for the next one.
 */
export async function buildAgentBinaries(o: BuildOptions = {}): Promise<AgentBuildManifest> {
  const outDir = o.outDir ?? DEFAULT_AGENT_DIST;
  const targets = o.targets ?? AGENT_TARGETS;
  const log = o.log ?? ((line: string) => process.stderr.write(`build:agent: ${line}\n`));
  const started = Date.now();

  const version = packageVersion();
  const commit = gitCommit();
  const bundle = await bundleAgent({ version, commit });
  for (const warning of bundle.warnings) log(`esbuild: ${warning}`);
  const inputs = createHash("sha256")
    .update(NODE_VERSION)
    .update(`\0${AGENT_EXEC_ARGV.join(" ")}\0`)
    .update(bundle.code);
  for (const [name, code] of Object.entries(bundle.chunks)) inputs.update(`\0${name}\0`).update(code);
  // The build's own code: a change in how executables are made is a change of input too.
  for (const file of readdirSync(import.meta.dirname)
    .filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts"))
    .sort())
    inputs.update(`\0${file}\0`).update(readFileSync(join(import.meta.dirname, file)));
  // In one order whatever order they are built in: the same set of targets is the same input.
  for (const t of AGENT_TARGETS.filter((x) => targets.includes(x))) {
    inputs.update(`\0${t}`);
    for (const [name, file] of Object.entries(nativeAssets(t)))
      inputs.update(`\0${name}\0`).update(readFileSync(file));
  }
  // The MSI's service wrapper travels with the Windows executable.
  if (targets.includes("windows-x64")) inputs.update(`\0${WINSW_FILE}\0`).update(winswBytes());
  const inputsSha256 = inputs.digest("hex");

  mkdirSync(outDir, { recursive: true });
  const release = await lockOutput(outDir, (pid) =>
    log(`waiting for another build of ${relative(process.cwd(), outDir) || "."} (pid ${pid}) to finish`),
  );
  // Its own scratch folder: another checkout's or process's build never clears this one's.
  const cacheDir = join(ROOT, "node_modules", ".cache");
  mkdirSync(cacheDir, { recursive: true });
  const workDir = mkdtempSync(join(cacheDir, "caudal-agent-build-"));
  try {
    // Read under the lock: a build that held it may have just made what this one would.
    const previous = readManifest(outDir);
    if (!o.force && upToDate(previous, inputsSha256, targets, outDir) && previous) {
      log(`up to date (${outDir}, commit ${previous.commit}): nothing to build`);
      return previous;
    }
    const sameInputs = !o.force && previous?.inputs_sha256 === inputsSha256 ? previous : null;

    const bundleFile = join(workDir, "agent.cjs");
    writeFileSync(bundleFile, bundle.code);
    const chunkFiles: Record<string, string> = {};
    for (const [name, code] of Object.entries(bundle.chunks)) {
      chunkFiles[name] = join(workDir, name.replaceAll("/", "-"));
      writeFileSync(chunkFiles[name], code);
    }
    const chunkSizes = Object.entries(bundle.chunks).map(
      ([n, c]) => `${n} ${(c.length / 1e6).toFixed(1)} MB`,
    );
    log(
      `bundled the agent: ${(bundle.code.length / 1e6).toFixed(1)} MB of JavaScript, and ${chunkSizes.join(", ")} loaded on first use (${version}, commit ${commit})`,
    );

    const manifest: AgentBuildManifest = {
      version,
      commit,
      built_at: new Date().toISOString(),
      node_version: NODE_VERSION,
      inputs_sha256: inputsSha256,
      artifacts: [],
    };
    // An executable made from these same inputs by a build stopped part-way is kept.
    const keptOf = (target: AgentTarget): AgentArtifact | undefined => {
      const kept = sameInputs?.artifacts.find((a) => a.target === target);
      if (!kept || o.sizes || !sameSize(join(outDir, kept.file), kept.bytes)) return undefined;
      const winsw = sameInputs?.winsw;
      if (target === "windows-x64" && !(winsw && sameSize(join(outDir, winsw.file), winsw.bytes)))
        return undefined;
      return kept;
    };
    // Every runtime fetch starts now: downloads overlap the CPU work of the executables before them.
    const runtimes = new Map(targets.filter((t) => !keptOf(t)).map((t) => [t, nodeRuntime(t, log)] as const));
    for (const fetching of runtimes.values()) fetching.catch(() => {}); // reported where awaited
    for (const [i, target] of targets.entries()) {
      const t0 = Date.now();
      const file = agentArtifactFile(target);
      const path = join(outDir, file);
      const kept = keptOf(target);
      if (kept) {
        manifest.artifacts.push(kept);
        if (target === "windows-x64") manifest.winsw = sameInputs?.winsw;
        log(targetDoneLine(i + 1, targets.length, file, "kept, made from these same inputs"));
        continue;
      }
      log(targetStartLine(i + 1, targets.length, file));
      const nodeBinary = await (runtimes.get(target) ?? nodeRuntime(target, log));
      const partial = join(outDir, `${file}.partial`);
      await buildExecutable({ target, bundleFile, chunkFiles, nodeBinary, workDir, output: partial });
      renameSync(partial, path);
      const artifact: AgentArtifact = {
        target,
        file,
        bytes: statSync(path).size,
        sha256: await sha256File(path),
      };
      if (o.sizes)
        artifact.xz_bytes = Number(
          execFileSync("sh", ["-c", 'xz -6 -T0 -c "$1" | wc -c', "xz", path]).toString().trim(),
        );
      manifest.artifacts.push(artifact);
      if (target === "windows-x64") {
        manifest.winsw = copyWinsw(outDir);
        log(
          `${WINSW_FILE} (WinSW from node-windows, the MSI's service wrapper) sha256 ${manifest.winsw.sha256}`,
        );
      }
      writeManifest(outDir, manifest);
      log(
        targetDoneLine(
          i + 1,
          targets.length,
          file,
          `${(artifact.bytes / 1e6).toFixed(1)} MB in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
        ),
      );
    }
    manifest.built_at = new Date().toISOString();
    writeManifest(outDir, manifest);
    log(
      `done in ${((Date.now() - started) / 1000).toFixed(1)} s: ${relative(process.cwd(), join(outDir, AGENT_MANIFEST_FILE))}`,
    );
    return manifest;
  } finally {
    rmSync(workDir, { recursive: true, force: true });
    release();
  }
}
