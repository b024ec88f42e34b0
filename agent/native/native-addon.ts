import { createHash } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { getRawAsset } from "node:sea";

/**
 * Native addons inside the single executable. A SEA cannot dlopen from its own file, so each addon
 * travels as an asset (`native/<name>.node`, the target's prebuild; scripts/build/sea.ts) and is
 * written to a cache folder on first use, named by its SHA-256, then loaded with process.dlopen.
 */
let cacheDir: string | undefined;

/** The agent's data dir is known only once its configuration is read: main.ts sets it then. */
export function setNativeCacheDir(dir: string): void {
  cacheDir = dir;
}

function defaultCacheDir(): string {
  // systemd's CacheDirectory=, else the user's cache, else the temporary folder.
  const base =
    process.env.CACHE_DIRECTORY ?? process.env.XDG_CACHE_HOME ?? join(homedir() || tmpdir(), ".cache");
  return join(base, "caudal-agent", "native");
}

const loaded = new Map<string, unknown>();

export function loadNativeAddon(name: string): unknown {
  const cached = loaded.get(name);
  if (cached) return cached;
  const bytes = Buffer.from(getRawAsset(`native/${name}.node`));
  const digest = createHash("sha256").update(bytes).digest("hex");
  const dir = cacheDir ?? defaultCacheDir();
  const file = join(dir, `${name}-${digest.slice(0, 16)}.node`);
  // Content-addressed: a file of that name holds these bytes unless someone changed it, so check.
  const current = existsSync(file) ? createHash("sha256").update(readFileSync(file)).digest("hex") : null;
  if (current !== digest) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const partial = `${file}.${process.pid}.partial`;
    writeFileSync(partial, bytes, { mode: 0o500 });
    renameSync(partial, file);
    chmodSync(file, 0o500);
  }
  const module = { exports: {} as unknown };
  process.dlopen(module, file);
  loaded.set(name, module.exports);
  return module.exports;
}
