import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { createApp } from "../app.ts";
import { refreshCookieOf, TestServer } from "../testing/harness.ts";

type HeaderSource = Pick<Headers, "get">;

/** OWASP Secure Headers: no MIME sniffing, no Referer leaks, no framing (clickjacking). */
function expectSecurityHeaders(headers: HeaderSource, what: string): void {
  expect(headers.get("x-content-type-options"), what).toBe("nosniff");
  expect(headers.get("referrer-policy"), what).toBe("no-referrer");
  expect(headers.get("x-frame-options"), what).toBe("DENY");
}

/** RFC 9111 §5.2.2.5: a response that carries a token must not be stored by any cache. */
function expectNoStore(headers: HeaderSource, what: string): void {
  expect(headers.get("cache-control"), what).toBe("no-store");
}

describe("security headers", () => {
  let t: TestServer;
  let admin: { token: string; email: string; password: string };
  beforeAll(async () => {
    t = await TestServer.start();
    admin = await t.admin();
  });
  afterAll(async () => t.stop());

  it("on every kind of response: API, errors, system endpoints, the explorer and its assets", async () => {
    const project = await t.project();
    const cases: [string, Parameters<TestServer["request"]>[1]][] = [
      ["/api/edge/projects", { token: admin.token }],
      [`/api/edge/projects/${project}`, { token: admin.token }],
      ["/api/edge/projects", {}],
      ["/api/auth/login", { body: { email: "x" } }],
      ["/api/auth/login", { rawBody: "{bad" }],
      ["/api/nope", {}],
      ["/nope", {}],
      ["/health", {}],
      ["/metrics", {}],
      ["/docs", {}],
      ["/docs/openapi.yaml", {}],
      ["/docs/swagger-initializer.js", {}],
      ["/docs/assets/swagger-ui.css", {}],
      ["/health", { method: "HEAD" }],
    ];
    for (const [path, init] of cases) {
      const res = await t.request(path, init);
      expectSecurityHeaders(res.headers, `${init?.method ?? "GET"} ${path} (${res.status})`);
    }
    const redirect = await fetch(`${t.baseUrl}/docs/`, { redirect: "manual" });
    expectSecurityHeaders(redirect.headers, "redirect");
  });

  it("on an unexpected 500", async () => {
    const app = createApp({ ctx: t.server.context });
    app.get("/boom", () => {
      throw new Error("unexpected");
    });
    const res = await app.request("/boom");
    expect(res.status).toBe(500);
    expectSecurityHeaders(res.headers, "500");
  });

  it("on a refused WebSocket handshake", async () => {
    const headers = await new Promise<Map<string, string>>((resolve, reject) => {
      const ws = new WebSocket(`${t.baseUrl.replace("http", "ws")}/api/ws/telemetry`);
      ws.on("unexpected-response", (_req, res) => {
        const out = new Map<string, string>();
        for (const [k, v] of Object.entries(res.headers)) if (typeof v === "string") out.set(k, v);
        resolve(out);
        res.resume();
        ws.terminate();
      });
      ws.on("open", () => reject(new Error("the handshake succeeded without a token")));
      ws.on("error", reject);
    });
    expectSecurityHeaders({ get: (name: string) => headers.get(name) ?? null }, "WebSocket refusal");
  });

  it("Cache-Control: no-store on every response that carries a token", async () => {
    const login = await t.login(admin.email, admin.password);
    expect(login.status).toBe(200);
    expectNoStore(login.headers, "login");
    const cookie = refreshCookieOf(login);
    const refreshed = await t.request("/api/auth/refresh", {
      method: "POST",
      headers: { cookie: `caudal_refresh=${cookie}` },
    });
    expect(refreshed.status).toBe(200);
    expectNoStore(refreshed.headers, "refresh");
    const refused = await t.request("/api/auth/refresh", { method: "POST" });
    expectNoStore(refused.headers, "refused refresh");

    const project = await t.project();
    const agentToken = await t.request(`/api/edge/projects/${project}/agent-token`, {
      method: "POST",
      token: admin.token,
    });
    expect(agentToken.status).toBe(201);
    expectNoStore(agentToken.headers, "agent token");

    const user = await t.userWithRole("operador");
    const setup = await t.request("/api/auth/2fa/setup", { method: "POST", token: user.token });
    expect(setup.status).toBe(200);
    expectNoStore(setup.headers, "2fa setup (the TOTP secret)");

    const fresh = await TestServer.start();
    try {
      const registered = await fresh.request("/api/auth/setup/register", {
        body: { email: "first@caudal.test", name: "First", password: "long enough" },
      });
      expect(registered.status).toBe(201);
      expectNoStore(registered.headers, "setup/register");
    } finally {
      await fresh.stop();
    }
  });

  it("cacheable system files keep their own Cache-Control", async () => {
    const asset = await t.request("/docs/assets/swagger-ui.css");
    expect(asset.headers.get("cache-control")).toBe("public, max-age=86400");
    expect((await t.request("/docs/openapi.yaml")).headers.get("cache-control")).toBe("no-cache");
  });
});
