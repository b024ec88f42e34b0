import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, readlinkSync, renameSync, writeFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { curlMissing } from "../../../scripts/testing/peers.ts";
import { requirePeer } from "../../../scripts/testing/require-peer.ts";
import type { AgentBuildManifest } from "../../../shared/distribution/agent-manifest.ts";
import { writeAgentDistFixture } from "../../testing/agent-dist-fixture.ts";
import { expectError } from "../../testing/fixtures/field-fixtures.ts";
import { TestServer } from "../../testing/harness.ts";

const run = promisify(execFile);
const curl = requirePeer("curl", curlMissing);
const BINARY = "/api/edge/agent/linux-binary";
// Larger than a few stream chunks and socket buffers, so a download can be cut off midway.
const X86_BYTES = 8 * 1024 * 1024;

type Download = { res: Response; body: Buffer };

/** GET /api/edge/agent/linux-binary/{arch} (issue 10 §3): credentials, conditional GET, ranges, HEAD. */
describe("GET /api/edge/agent/linux-binary/{arch}", () => {
  let t: TestServer;
  let admin: string;
  let supervisor: string;
  let project: string;
  let manifest: AgentBuildManifest;
  let x86: Buffer;
  let etag: string;
  beforeAll(async () => {
    t = await TestServer.start();
    admin = (await t.admin()).token;
    project = await t.project();
    supervisor = (await t.userWithRole("supervisor", [project])).token;
    manifest = writeAgentDistFixture(t.config.AGENT_DIST_DIR, {
      targets: ["linux-x86_64", "linux-aarch64"],
      bytes: X86_BYTES,
    });
    x86 = readFileSync(join(t.config.AGENT_DIST_DIR, "agent-linux-x86_64"));
    etag = `"${createHash("sha256").update(x86).digest("hex")}"`;
  });
  afterAll(async () => t.stop());

  const fetchBinary = async (
    arch: string,
    options: { token?: string; method?: string; headers?: Record<string, string> } = {},
  ): Promise<Download> => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    const res = await fetch(`${t.baseUrl}${BINARY}/${arch}`, { method: options.method ?? "GET", headers });
    return { res, body: Buffer.from(await res.arrayBuffer()) };
  };
  const asJson = async (d: Download) => ({
    status: d.res.status,
    headers: d.res.headers,
    body: JSON.parse(d.body.toString("utf8")) as unknown,
    text: d.body.toString("utf8"),
  });
  const issueCode = async (ttlSeconds?: number) => {
    const res = await t.request<{ id: string; code: string }>(
      `/api/edge/projects/${project}/enrollment-codes`,
      { method: "POST", token: admin, ...(ttlSeconds ? { body: { ttl_seconds: ttlSeconds } } : {}) },
    );
    expect(res.status).toBe(201);
    return res.body;
  };

  describe("credentials", () => {
    it("401 without a token, with a bad one, and with the Basic scheme", async () => {
      const attempts: Record<string, string>[] = [
        {},
        { authorization: "Bearer not-a-jwt" },
        { authorization: `Basic ${admin}` },
      ];
      for (const headers of attempts) {
        expectError(await asJson(await fetchBinary("x86_64", { headers })), 401, "Unauthorized");
      }
    });

    it("403 for operador and anh_reader, who may not install agents", async () => {
      for (const role of ["operador", "anh_reader"] as const) {
        const { token } = await t.userWithRole(role, [project]);
        expectError(await asJson(await fetchBinary("x86_64", { token })), 403, "Forbidden");
      }
    });

    it("a supervisor's access token and an active or used enrollment code download it", async () => {
      const bySupervisor = await fetchBinary("x86_64", { token: supervisor });
      expect(bySupervisor.res.status).toBe(200);
      expect(bySupervisor.body.equals(x86)).toBe(true);
      const code = await issueCode();
      expect((await fetchBinary("x86_64", { token: code.code })).res.status).toBe(200);
      const enrolled = await t.request("/api/edge/agents/enroll", { body: { code: code.code } });
      expect(enrolled.status).toBe(200);
      // Used: re-running the install script (an upgrade) downloads the binary again.
      const again = await fetchBinary("aarch64", { token: code.code, method: "HEAD" });
      expect(again.res.status).toBe(200);
    });

    it("401 for an unknown, an expired and a revoked enrollment code, each saying why", async () => {
      const unknown = await asJson(await fetchBinary("x86_64", { token: "cen_never-issued-0123456789" }));
      expectError(unknown, 401, "InvalidEnrollmentCode");
      const revoked = await issueCode();
      const del = await t.request(`/api/edge/projects/${project}/enrollment-codes/${revoked.id}`, {
        method: "DELETE",
        token: admin,
      });
      expect(del.status).toBe(200);
      const refused = await asJson(await fetchBinary("x86_64", { token: revoked.code }));
      expectError(refused, 401, "EnrollmentCodeRevoked");
      expect(refused.text).toContain("revoked");
      const expiring = await issueCode(60);
      t.clock.advance(61_000);
      const expired = await asJson(await fetchBinary("x86_64", { token: expiring.code }));
      expectError(expired, 401, "EnrollmentCodeExpired");
      // The credential is checked before the input: a bad arch with a revoked code is still a 401.
      expectError(
        await asJson(await fetchBinary("sparc", { token: revoked.code })),
        401,
        "EnrollmentCodeRevoked",
      );
      admin = (await t.admin()).token;
    });
  });

  describe("the architecture", () => {
    it("400 for anything but x86_64 and aarch64, encoded path tricks included", async () => {
      const tricks = [
        "arm",
        "X86_64",
        "x86-64",
        "amd64",
        "..%2Fmanifest.json",
        "..%2F..%2F..%2Fetc%2Fpasswd",
        "%2Fetc%2Fpasswd",
        "x86_64%00",
        "x86_64%2F..",
        "%20x86_64",
        "...",
      ];
      for (const arch of tricks) {
        const res = await asJson(await fetchBinary(arch, { token: supervisor }));
        expectError(res, 400, "ValidationFailed", "arch");
        expect(res.text).toContain("must be x86_64 or aarch64");
      }
    });

    it("dot segments, raw or encoded, are resolved before routing: no route, never a file", async () => {
      const raw = (path: string) =>
        new Promise<{ status: number; body: string }>((resolve, reject) => {
          // node:http sends the path as written; fetch would resolve the dots itself.
          const headers = { authorization: `Bearer ${supervisor}` };
          const req = httpRequest({ host: "127.0.0.1", port: t.server.port, path, headers }, (res) => {
            let body = "";
            res.setEncoding("latin1");
            res.on("data", (chunk: string) => {
              body += chunk;
            });
            res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
          });
          req.on("error", reject);
          req.end();
        });
      const paths = [
        `${BINARY}/..`,
        `${BINARY}/%2e%2e`,
        `${BINARY}/../manifest.json`,
        `${BINARY}/../../../../etc/passwd`,
        `${BINARY}/%2e%2e/%2e%2e/manifest.json`,
        `${BINARY}/x86_64/../../manifest.json`,
      ];
      for (const path of paths) {
        const res = await raw(path);
        expect(res.status, path).toBe(404);
        expect(JSON.parse(res.body)).toMatchObject({ error: "NotFound" });
      }
    });

    it("serves each architecture's own file", async () => {
      const arm = await fetchBinary("aarch64", { token: supervisor });
      expect(arm.res.status).toBe(200);
      const sha = manifest.artifacts.find((a) => a.target === "linux-aarch64")?.sha256;
      expect(createHash("sha256").update(arm.body).digest("hex")).toBe(sha);
    });
  });

  describe("headers, conditional GET, ranges and HEAD", () => {
    it("200: Content-Length, ETag (the SHA-256), Repr-Digest (RFC 9530), Content-Disposition", async () => {
      const { res, body } = await fetchBinary("x86_64", { token: supervisor });
      expect(res.status).toBe(200);
      expect(body.equals(x86)).toBe(true);
      const digest = createHash("sha256").update(x86);
      expect(Object.fromEntries(res.headers)).toMatchObject({
        "content-type": "application/octet-stream",
        "content-length": String(X86_BYTES),
        etag,
        "repr-digest": `sha-256=:${digest.digest("base64")}:`,
        "content-disposition": 'attachment; filename="caudal-agent-1.0.0-fixture-linux-x86_64"',
        "accept-ranges": "bytes",
        "cache-control": "private, no-cache",
        "x-api-version": "1",
      });
    });

    it("HEAD: the same headers and no body", async () => {
      const { res, body } = await fetchBinary("x86_64", { token: supervisor, method: "HEAD" });
      expect(res.status).toBe(200);
      expect(body.length).toBe(0);
      expect(res.headers.get("content-length")).toBe(String(X86_BYTES));
      expect(res.headers.get("etag")).toBe(etag);
      expect(res.headers.get("repr-digest")).toMatch(/^sha-256=:[A-Za-z0-9+/]+=*:$/);
    });

    it("If-None-Match: 304 without a body for the current ETag (or *), 200 for another", async () => {
      for (const inm of [etag, `W/${etag}`, `"other", ${etag}`, "*"]) {
        const { res, body } = await fetchBinary("x86_64", {
          token: supervisor,
          headers: { "if-none-match": inm },
        });
        expect(res.status).toBe(304);
        expect(body.length).toBe(0);
        expect(res.headers.get("etag")).toBe(etag);
      }
      const changed = await fetchBinary("x86_64", {
        token: supervisor,
        headers: { "if-none-match": '"old"' },
      });
      expect(changed.res.status).toBe(200);
      expect(changed.body.length).toBe(X86_BYTES);
    });

    it("Range: 206 with Content-Range for first-last, first- and -suffix, across chunk boundaries", async () => {
      const cases: [string, number, number][] = [
        ["bytes=0-99", 0, 99],
        ["bytes=65530-65545", 65530, 65545],
        [`bytes=${X86_BYTES - 10}-`, X86_BYTES - 10, X86_BYTES - 1],
        ["bytes=-4096", X86_BYTES - 4096, X86_BYTES - 1],
        [`bytes=1000-${X86_BYTES * 2}`, 1000, X86_BYTES - 1],
      ];
      for (const [range, start, end] of cases) {
        const { res, body } = await fetchBinary("x86_64", { token: supervisor, headers: { range } });
        expect(res.status, range).toBe(206);
        expect(res.headers.get("content-range")).toBe(`bytes ${start}-${end}/${X86_BYTES}`);
        expect(res.headers.get("content-length")).toBe(String(end - start + 1));
        expect(res.headers.get("etag")).toBe(etag);
        expect(res.headers.get("repr-digest")).toContain("sha-256=:");
        expect(body.equals(x86.subarray(start, end + 1))).toBe(true);
      }
      const head = await fetchBinary("x86_64", {
        token: supervisor,
        method: "HEAD",
        headers: { range: "bytes=10-19" },
      });
      expect(head.res.status).toBe(206);
      expect(head.res.headers.get("content-length")).toBe("10");
      expect(head.body.length).toBe(0);
    });

    it("If-Range: the range holds for the current ETag; another gets the whole file", async () => {
      const same = await fetchBinary("x86_64", {
        token: supervisor,
        headers: { range: "bytes=5-9", "if-range": etag },
      });
      expect(same.res.status).toBe(206);
      expect(same.body.equals(x86.subarray(5, 10))).toBe(true);
      const stale = await fetchBinary("x86_64", {
        token: supervisor,
        headers: { range: "bytes=5-9", "if-range": '"old"' },
      });
      expect(stale.res.status).toBe(200);
      expect(stale.body.equals(x86)).toBe(true);
    });

    it("416 with Content-Range bytes */size past the end; several or malformed ranges get the whole file", async () => {
      const past = await fetchBinary("x86_64", {
        token: supervisor,
        headers: { range: `bytes=${X86_BYTES}-` },
      });
      expect(past.res.headers.get("content-range")).toBe(`bytes */${X86_BYTES}`);
      expectError(await asJson(past), 416, "RangeNotSatisfiable");
      for (const range of ["bytes=0-1,5-6", "bytes=9-2", "lines=1-2", "bytes=x"]) {
        const { res, body } = await fetchBinary("x86_64", { token: supervisor, headers: { range } });
        expect(res.status, range).toBe(200);
        expect(body.length).toBe(X86_BYTES);
      }
    });

    curl.it("resumes an interrupted download (curl -C -) to the exact file", async () => {
      const code = await issueCode();
      const file = join(t.dataDir, "resumed");
      writeFileSync(file, x86.subarray(0, 3_000_001));
      const header = join(t.dataDir, "curl-header");
      writeFileSync(header, `header = "Authorization: Bearer ${code.code}"\n`, { mode: 0o600 });
      await run("curl", [
        "--config",
        header,
        "--fail",
        "--silent",
        "--show-error",
        "-C",
        "-",
        "-o",
        file,
        `${t.baseUrl}${BINARY}/x86_64`,
      ]);
      expect(readFileSync(file).equals(x86)).toBe(true);
    });

    it("leaves no file open: HEAD, 304, 416, and downloads cut off midway", async () => {
      const artifact = join(t.config.AGENT_DIST_DIR, "agent-linux-x86_64");
      const openOnArtifact = () =>
        readdirSync("/proc/self/fd").filter((fd) => {
          try {
            return readlinkSync(`/proc/self/fd/${fd}`) === artifact;
          } catch {
            return false;
          }
        }).length;
      for (const [method, headers] of [
        ["HEAD", {}],
        ["GET", { "if-none-match": etag }],
        ["GET", { range: `bytes=${X86_BYTES}-` }],
      ] as const) {
        await fetchBinary("x86_64", { token: supervisor, method, headers });
      }
      expect(openOnArtifact()).toBe(0);
      for (let i = 0; i < 5; i++) {
        const controller = new AbortController();
        const res = await fetch(`${t.baseUrl}${BINARY}/x86_64`, {
          headers: { authorization: `Bearer ${supervisor}` },
          signal: controller.signal,
        });
        await res.body?.getReader().read();
        // Still streaming from the file: the download is bigger than what is in flight.
        expect(openOnArtifact()).toBeGreaterThan(0);
        controller.abort();
      }
      await expect.poll(openOnArtifact, { timeout: 5_000 }).toBe(0);
    });
  });

  describe("when nothing is built", () => {
    // The test server builds nothing itself (AGENT_BUILD=off): asking again cannot help, so no Retry-After.
    it("503 AgentNotBuilt without Retry-After, saying what to do, for a missing manifest and for a file of the wrong size", async () => {
      const dist = t.config.AGENT_DIST_DIR;
      renameSync(join(dist, "manifest.json"), join(dist, "manifest.away"));
      try {
        const res = await asJson(await fetchBinary("x86_64", { token: supervisor }));
        expectError(res, 503, "AgentNotBuilt");
        expect(res.headers.get("retry-after")).toBeNull();
        expect(res.text).toContain("npm run build:agent");
      } finally {
        renameSync(join(dist, "manifest.away"), join(dist, "manifest.json"));
      }
      const arm = join(dist, "agent-linux-aarch64");
      const armBytes = readFileSync(arm);
      writeFileSync(arm, armBytes.subarray(0, 1000));
      try {
        const res = await asJson(await fetchBinary("aarch64", { token: supervisor }));
        expectError(res, 503, "AgentNotBuilt");
        expect(res.headers.get("retry-after")).toBeNull();
      } finally {
        writeFileSync(arm, armBytes);
      }
      expect((await fetchBinary("aarch64", { token: supervisor, method: "HEAD" })).res.status).toBe(200);
    });
  });

  it("the OpenAPI document declares the binary responses, their headers and both credentials", async () => {
    type Op = {
      security: Record<string, string[]>[];
      responses: Record<
        string,
        { content?: Record<string, { schema: unknown }>; headers?: Record<string, unknown> }
      >;
    };
    const doc = await t.request<{
      paths: Record<string, { get: Op }>;
      components: { securitySchemes: Record<string, unknown> };
    }>("/docs/openapi.json");
    const op = doc.body.paths["/api/edge/agent/linux-binary/{arch}"]?.get;
    expect(Object.keys(op?.responses ?? {}).sort()).toEqual([
      "200",
      "206",
      "304",
      "400",
      "401",
      "403",
      "416",
      "503",
    ]);
    expect(op?.responses["200"]?.content?.["application/octet-stream"]?.schema).toEqual({
      type: "string",
      format: "binary",
    });
    expect(Object.keys(op?.responses["200"]?.headers ?? {})).toEqual(
      expect.arrayContaining(["ETag", "Repr-Digest", "Content-Length", "Content-Disposition"]),
    );
    expect(Object.keys(op?.responses["503"]?.headers ?? {})).toEqual(["Retry-After"]);
    expect(op?.security).toEqual([{ bearerAuth: [] }, { enrollmentCode: [] }]);
    expect(doc.body.components.securitySchemes.enrollmentCode).toMatchObject({
      type: "http",
      scheme: "bearer",
    });
  });
});
