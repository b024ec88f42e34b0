import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { gzipSync } from "node:zlib";
import type { Context } from "hono";
import swaggerUiPackage from "swagger-ui-dist/package.json" with { type: "json" };
import { AppError } from "../../errors.ts";
import type { Router } from "../router.ts";

/** The only files served: a fixed list, so no request path ever reaches the file system. */
const ASSETS: Record<string, string> = {
  "swagger-ui.css": "text/css; charset=utf-8",
  "index.css": "text/css; charset=utf-8",
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
  "swagger-ui-standalone-preset.js": "text/javascript; charset=utf-8",
  "favicon-16x16.png": "image/png",
  "favicon-32x32.png": "image/png",
};

type Asset = {
  body: Uint8Array<ArrayBuffer>;
  gzip: Uint8Array<ArrayBuffer> | null;
  etag: string;
  type: string;
};

const distDir = dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));
const version = swaggerUiPackage.version;

/** Loaded on first request and kept: the bundle is 1.7 MB, about 0.5 MB gzipped for slow site links. */
const cache = new Map<string, Promise<Asset>>();

async function load(file: string, type: string): Promise<Asset> {
  const body = new Uint8Array(await readFile(join(distDir, file)));
  const gzip = type.startsWith("image/") ? null : new Uint8Array(gzipSync(body));
  return { body, gzip, etag: `"swagger-ui-${version}-${file}"`, type };
}

async function serve(c: Context, file: string): Promise<Response> {
  const type = ASSETS[file];
  if (!type) throw new AppError("NotFound", `no explorer asset named ${file}`);
  let pending = cache.get(file);
  if (!pending) {
    pending = load(file, type);
    cache.set(file, pending);
    pending.catch(() => cache.delete(file));
  }
  const asset = await pending;
  const gzip = asset.gzip && /\bgzip\b/.test(c.req.header("accept-encoding") ?? "") ? asset.gzip : null;
  // Each encoding is its own representation, so each has its own validator (RFC 9110 §8.8.3).
  const etag = gzip ? `${asset.etag.slice(0, -1)}-gzip"` : asset.etag;
  const headers: Record<string, string> = {
    ETag: etag,
    "Cache-Control": "public, max-age=86400",
    Vary: "Accept-Encoding",
  };
  if (c.req.header("if-none-match") === etag) return c.body(null, 304, headers);
  headers["Content-Type"] = asset.type;
  if (gzip) headers["Content-Encoding"] = "gzip";
  return c.body(gzip ?? asset.body, 200, headers);
}

/** Swagger UI's files from node_modules/swagger-ui-dist, so /docs needs no CDN. */
export function mountSwaggerAssets(router: Router): void {
  router.get("/docs/assets/:file", (c) => serve(c, c.req.param("file")));
}
