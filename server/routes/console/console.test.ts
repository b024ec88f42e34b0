import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtConsole } from "../../../scripts/testing/console-build.ts";
import { OWN_FILES_PAGE_CSP } from "../../../shared/content-security-policy.ts";
import { TestServer } from "../../testing/harness.ts";
import { pickEncoding } from "./console-files.ts";

/** Raw bytes as sent (fetch would decode Content-Encoding itself). */
async function raw(url: string, headers: Record<string, string> = {}) {
  const { request } = await import("node:http");
  return new Promise<{
    status: number;
    headers: Record<string, string | string[] | undefined>;
    body: Buffer;
  }>((resolve, reject) => {
    const req = request(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
    });
    req.on("error", reject);
    req.end();
  });
}

describe("the operator console at /", () => {
  let t: TestServer;
  let assets: string[];
  beforeAll(async () => {
    const { dir, build } = await builtConsole();
    assets = Object.keys(build.manifest.assets);
    t = await TestServer.start({ CONSOLE_DIR: dir });
  });
  afterAll(async () => t?.stop());

  it("serves the page with a strict CSP, revalidated on every load", async () => {
    const res = await raw(`${t.baseUrl}/`);
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(res.headers["cache-control"]).toBe("no-cache");
    expect(res.headers["content-security-policy"]).toBe(OWN_FILES_PAGE_CSP);
    const html = res.body.toString();
    // No inline script or style: every script and stylesheet is a file of the build.
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)/);
    expect(html).not.toMatch(/<style|\sstyle=/);
    for (const src of html.match(/(?:src|href)="([^"]+)"/g) ?? []) {
      const name = /assets\/([^"]+)"/.exec(src)?.[1];
      expect(assets, src).toContain(name);
    }
    const again = await raw(`${t.baseUrl}/`, { "if-none-match": String(res.headers.etag) });
    expect(again.status).toBe(304);
  });

  it("serves hashed assets as immutable, brotli or gzip as the browser accepts", async () => {
    const js = assets.find((a) => a.endsWith(".js")) ?? "";
    const plain = await raw(`${t.baseUrl}/assets/${js}`);
    expect(plain.status).toBe(200);
    expect(plain.headers["content-type"]).toBe("text/javascript; charset=utf-8");
    expect(plain.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    expect(plain.headers["content-encoding"]).toBeUndefined();
    const br = await raw(`${t.baseUrl}/assets/${js}`, { "accept-encoding": "gzip, deflate, br" });
    expect(br.headers["content-encoding"]).toBe("br");
    expect(br.headers.vary).toBe("Accept-Encoding");
    expect(brotliDecompressSync(br.body).equals(plain.body)).toBe(true);
    expect(br.body.length).toBeLessThan(plain.body.length / 2);
    const gz = await raw(`${t.baseUrl}/assets/${js}`, { "accept-encoding": "gzip" });
    expect(gz.headers["content-encoding"]).toBe("gzip");
    expect(gunzipSync(gz.body).equals(plain.body)).toBe(true);
    expect(br.headers.etag).not.toBe(gz.headers.etag);
    const cached = await raw(`${t.baseUrl}/assets/${js}`, {
      "accept-encoding": "br",
      "if-none-match": String(br.headers.etag),
    });
    expect(cached.status).toBe(304);
  });

  it("answers 404 in the error shape for a file the build does not list", async () => {
    for (const path of [
      "/assets/nope.js",
      "/assets/..%2Fmanifest.json",
      "/assets/manifest.json",
      "/assets/",
    ]) {
      const res = await t.request(path);
      expect(res.status, path).toBe(404);
      expect(res.body).toMatchObject({ error: "NotFound", message: expect.any(String) });
    }
  });

  it("is documented as a public operation of the API document", async () => {
    const doc = await t.request<{ paths: Record<string, { get?: { security?: unknown } }> }>(
      "/docs/openapi.json",
    );
    expect(doc.body.paths["/"]?.get).toBeDefined();
    expect(doc.body.paths["/"]?.get?.security).toBeUndefined();
  });
});

describe("a server whose console is not built", () => {
  let t: TestServer;
  const empty = mkdtempSync(join(tmpdir(), "caudal-no-console-"));
  beforeAll(async () => {
    t = await TestServer.start({ CONSOLE_DIR: empty });
  });
  afterAll(async () => {
    await t?.stop();
    rmSync(empty, { recursive: true, force: true });
  });

  it("answers 503 at / saying how to build it, and the API still works", async () => {
    const res = await t.request("/");
    expect(res.status).toBe(503);
    expect(res.body).toEqual({
      error: "Unavailable",
      message: expect.stringContaining("npm run build:console"),
    });
    expect((await t.request("/health")).status).toBe(200);
  });
});

describe("pickEncoding", () => {
  it.each([
    [undefined, "identity"],
    ["", "identity"],
    ["gzip, deflate, br", "br"],
    ["gzip", "gzip"],
    ["br;q=0, gzip", "gzip"],
    ["gzip;q=0", "identity"],
    ["identity", "identity"],
  ] as const)("%s → %s", (header, want) => {
    expect(pickEncoding(header)).toBe(want);
  });
});
