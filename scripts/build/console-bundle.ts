import { createHash } from "node:crypto";
import {
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { basename, join } from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import { build } from "esbuild";
import type { ConsoleManifest } from "../../server/routes/console/console-manifest.ts";

export const ROOT = join(import.meta.dirname, "..", "..");
export const CONSOLE_SOURCE = join(ROOT, "console");
export const DEFAULT_CONSOLE_DIST = join(ROOT, "dist", "console");

const TYPES: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
};

/** Files older than this and named by no manifest are removed: a page loaded before a rebuild still finds its files. */
const KEEP_OLD_ASSETS_MS = 24 * 3600_000;

export type ConsoleBuild = {
  manifest: ConsoleManifest;
  /** Bytes of each file as served with brotli (what a browser transfers). */
  brotliBytes: Record<string, number>;
};

function contentHash(body: Uint8Array): string {
  return createHash("sha256").update(body).digest("hex").slice(0, 12);
}

/** Written beside, then renamed: a server reading the folder never sees half a file. */
function writeAtomic(path: string, body: Uint8Array | string): void {
  const tmp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  writeFileSync(tmp, body);
  renameSync(tmp, path);
}

function typeOf(name: string): string {
  const ext = name.slice(name.lastIndexOf("."));
  const type = TYPES[ext];
  if (!type) throw new Error(`no content type for ${name}`);
  return type;
}

/**
 * Bundles console/ with esbuild into `outDir`: `assets/<name>-<hash>.<ext>` (each also as .gz and
 * .br, compressed once here rather than per request), `index.html` naming them, and
 * `manifest.json`, which the server reads (server/routes/console/). Idempotent: the same sources
 * give the same names, so concurrent builds into one folder write the same bytes.
 */
export async function buildConsole(outDir: string = DEFAULT_CONSOLE_DIST): Promise<ConsoleBuild> {
  const result = await build({
    entryPoints: {
      app: join(CONSOLE_SOURCE, "src", "main.ts"),
      styles: join(CONSOLE_SOURCE, "src", "styles", "console.css"),
    },
    bundle: true,
    write: false,
    outdir: "/assets",
    entryNames: "[name]-[hash]",
    format: "esm",
    platform: "browser",
    target: ["chrome109", "firefox115", "safari16"],
    minify: true,
    legalComments: "none",
    charset: "utf8",
    logLevel: "silent",
  });
  if (result.errors.length > 0) throw new Error(result.errors.map((e) => e.text).join("\n"));

  const files = new Map<string, Uint8Array>();
  for (const out of result.outputFiles) files.set(basename(out.path), out.contents);
  const icon = readFileSync(join(CONSOLE_SOURCE, "icon.svg"));
  files.set(`icon-${contentHash(icon)}.svg`, icon);

  const find = (prefix: string, ext: string) => {
    const name = [...files.keys()].find((n) => n.startsWith(prefix) && n.endsWith(ext));
    if (!name) throw new Error(`the build has no ${prefix}*${ext}`);
    return `assets/${name}`;
  };
  const index = readFileSync(join(CONSOLE_SOURCE, "index.html"), "utf8")
    .replace("{{app.js}}", find("app-", ".js"))
    .replace("{{styles.css}}", find("styles-", ".css"))
    .replace("{{icon.svg}}", find("icon-", ".svg"));
  if (index.includes("{{")) throw new Error("console/index.html names a file the build does not make");

  const assetsDir = join(outDir, "assets");
  mkdirSync(assetsDir, { recursive: true });
  const manifest: ConsoleManifest = {
    version: 1,
    index: { etag: `"${contentHash(Buffer.from(index))}"` },
    assets: {},
  };
  const brotliBytes: Record<string, number> = {};
  const compressAll = (name: string, body: Uint8Array, dir: string) => {
    const gz = gzipSync(body, { level: 9 });
    const br = brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } });
    writeAtomic(join(dir, name), body);
    writeAtomic(join(dir, `${name}.gz`), gz);
    writeAtomic(join(dir, `${name}.br`), br);
    brotliBytes[name] = br.length;
  };
  for (const [name, body] of files) {
    compressAll(name, body, assetsDir);
    manifest.assets[name] = { type: typeOf(name), size: body.length };
  }
  compressAll("index.html", Buffer.from(index), outDir);
  writeAtomic(join(outDir, "manifest.json"), `${JSON.stringify(manifest, null, 2)}\n`);

  const now = Date.now();
  for (const entry of readdirSync(assetsDir)) {
    const name = entry.replace(/\.(gz|br)$/, "");
    if (name in manifest.assets || entry.endsWith(".tmp")) continue;
    const path = join(assetsDir, entry);
    if (now - statSync(path).mtimeMs > KEEP_OLD_ASSETS_MS) unlinkSync(path);
  }
  return { manifest, brotliBytes };
}
