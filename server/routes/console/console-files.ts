import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { type ConsoleManifest, isConsoleManifest } from "./console-manifest.ts";

export type Encoding = "br" | "gzip" | "identity";

export type ConsoleFile = { body: Uint8Array; encoding: Encoding; type: string; etag: string };

const SUFFIX: Record<Encoding, string> = { br: ".br", gzip: ".gz", identity: "" };

/** The best encoding the client accepts (RFC 9110 §12.5.3): brotli, then gzip, else none. */
export function pickEncoding(acceptEncoding: string | undefined): Encoding {
  const accepted = new Set<string>();
  for (const part of (acceptEncoding ?? "").split(",")) {
    const [name = "", ...params] = part.split(";").map((p) => p.trim().toLowerCase());
    const q = params.find((p) => p.startsWith("q="));
    if (q === undefined || Number(q.slice(2)) > 0) accepted.add(name);
  }
  if (accepted.has("br")) return "br";
  if (accepted.has("gzip")) return "gzip";
  return "identity";
}

/**
 * The built console (CONSOLE_DIR, made by `npm run build:console`). The manifest is re-read when
 * its file changes, so a rebuild under a running server is served at once; assets are named by
 * their content, so a name read once stays valid and its bytes are kept in memory. Only names the
 * manifest lists are ever read: no request path reaches the file system.
 */
export class ConsoleFiles {
  readonly #dir: string;
  #manifest: { mtimeMs: number; value: ConsoleManifest } | null = null;
  readonly #cache = new Map<string, Uint8Array>();

  constructor(dir: string) {
    this.#dir = dir;
  }

  get dir(): string {
    return this.#dir;
  }

  /** The manifest, or null when the console is not built. */
  manifest(): ConsoleManifest | null {
    let mtimeMs: number;
    try {
      mtimeMs = statSync(join(this.#dir, "manifest.json")).mtimeMs;
    } catch {
      return null;
    }
    if (this.#manifest?.mtimeMs !== mtimeMs) {
      const value: unknown = JSON.parse(readFileSync(join(this.#dir, "manifest.json"), "utf8"));
      if (!isConsoleManifest(value)) return null;
      this.#manifest = { mtimeMs, value };
    }
    return this.#manifest.value;
  }

  index(acceptEncoding: string | undefined): ConsoleFile | null {
    const manifest = this.manifest();
    if (!manifest) return null;
    const encoding = pickEncoding(acceptEncoding);
    // Read each time (it is small): a rebuild renames a new index.html into place.
    const body = readFileSync(join(this.#dir, `index.html${SUFFIX[encoding]}`));
    return { body, encoding, type: "text/html; charset=utf-8", etag: tagged(manifest.index.etag, encoding) };
  }

  asset(name: string, acceptEncoding: string | undefined): ConsoleFile | null {
    const assets = this.manifest()?.assets;
    const entry = assets && Object.hasOwn(assets, name) ? assets[name] : undefined;
    if (!entry) return null;
    const encoding = pickEncoding(acceptEncoding);
    const file = `${name}${SUFFIX[encoding]}`;
    let body = this.#cache.get(file);
    if (!body) {
      body = readFileSync(join(this.#dir, "assets", file));
      this.#cache.set(file, body);
    }
    return { body, encoding, type: entry.type, etag: tagged(`"${name}"`, encoding) };
  }
}

/** Each encoding is its own representation, so each has its own validator (RFC 9110 §8.8.3). */
function tagged(etag: string, encoding: Encoding): string {
  return encoding === "identity" ? etag : `${etag.slice(0, -1)}-${encoding}"`;
}
