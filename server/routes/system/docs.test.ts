import { readFileSync } from "node:fs";
import { get } from "node:http";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TestServer } from "../../testing/harness.ts";

const dist = dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));

describe("GET /docs (the explorer) and its assets, served by Caudal", () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await TestServer.start();
  });
  afterAll(async () => t.stop());

  async function raw(path: string, headers: Record<string, string> = {}): Promise<Response> {
    return fetch(`${t.baseUrl}${path}`, { headers, redirect: "manual" });
  }

  it("is a public HTML page that loads only same-origin files, under a CSP that forbids others", async () => {
    const res = await t.request("/docs");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    const csp = res.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
    expect(res.text).not.toMatch(/https?:\/\//);
    // No inline script: every <script> has a src.
    expect(res.text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    const refs = [...res.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1] ?? "");
    expect(refs).toEqual(
      expect.arrayContaining([
        "docs/assets/swagger-ui.css",
        "docs/assets/swagger-ui-bundle.js",
        "docs/assets/swagger-ui-standalone-preset.js",
        "docs/assets/favicon-32x32.png",
        "docs/assets/favicon-16x16.png",
        "docs/swagger-initializer.js",
      ]),
    );
    for (const ref of refs) {
      const asset = await t.request(`/${ref}`);
      expect(asset.status, ref).toBe(200);
    }
  });

  it("points Swagger UI at the local document and turns off the outside validator", async () => {
    const res = await t.request("/docs/swagger-initializer.js");
    expect(res.headers.get("content-type")).toMatch(/^text\/javascript/);
    expect(res.text).toContain('url: "docs/openapi.yaml"');
    expect(res.text).toContain("validatorUrl: null");
    expect(res.text).not.toMatch(/https?:\/\//);
  });

  it("serves swagger-ui-dist's files byte for byte, gzipped when the client accepts it", async () => {
    for (const [file, type] of [
      ["swagger-ui-bundle.js", "text/javascript"],
      ["swagger-ui-standalone-preset.js", "text/javascript"],
      ["swagger-ui.css", "text/css"],
      ["favicon-16x16.png", "image/png"],
      ["favicon-32x32.png", "image/png"],
    ] as const) {
      const expected = readFileSync(join(dist, file));
      const plain = await raw(`/docs/assets/${file}`, { "accept-encoding": "identity" });
      expect(plain.status, file).toBe(200);
      expect(plain.headers.get("content-type"), file).toMatch(new RegExp(`^${type}`));
      expect(plain.headers.get("content-encoding"), file).toBeNull();
      expect(Buffer.from(await plain.arrayBuffer()).equals(expected), file).toBe(true);
      if (type === "image/png") continue;
      // fetch() would decode the body itself; node:http shows the wire bytes.
      const { status, encoding, body } = await wire(`/docs/assets/${file}`);
      expect(status).toBe(200);
      expect(encoding).toBe("gzip");
      expect(body.length).toBeLessThan(expected.length);
      expect(gunzipSync(body).equals(expected), file).toBe(true);
    }
  });

  it("serves nothing outside its fixed list", async () => {
    for (const path of [
      "/docs/assets/swagger-ui-bundle.js.map",
      "/docs/assets/package.json",
      "/docs/assets/..%2Fpackage.json",
      "/docs/assets/%2e%2e%2f%2e%2e%2fpackage.json",
      "/docs/assets/index.html",
    ]) {
      const res = await t.request<{ error: string }>(path);
      expect(res.status, path).toBe(404);
      expect(res.body.error).toBe("NotFound");
    }
  });

  it("sends /docs/ to /docs", async () => {
    const res = await raw("/docs/");
    expect(res.status).toBe(301);
    expect(new URL(res.headers.get("location") ?? "", `${t.baseUrl}/docs/`).pathname).toBe("/docs");
  });

  /** GET with Accept-Encoding: gzip over node:http, returning the undecoded body. */
  async function wire(path: string): Promise<{ status: number; encoding: string | undefined; body: Buffer }> {
    return new Promise((resolve, reject) => {
      get(`${t.baseUrl}${path}`, { headers: { "accept-encoding": "gzip" } }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            encoding: res.headers["content-encoding"],
            body: Buffer.concat(chunks),
          }),
        );
      }).on("error", reject);
    });
  }
});
