import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../logger.ts";
import { TestServer } from "../../testing/harness.ts";
import { isOpened, mustOpen, openStream, type Refusal } from "../../testing/ws-test-client.ts";

const VERSION = { "x-api-version": "1", "x-powered-by": "Caudal/1.0" };

async function refused(t: TestServer, query: Record<string, string>): Promise<Refusal> {
  const result = await openStream(t.baseUrl, query);
  if (isOpened(result)) {
    result.ws.terminate();
    throw new Error("the stream was opened");
  }
  return result;
}

function expectError(res: Refusal, status: number, error: string): void {
  expect(res.status).toBe(status);
  expect(res.headers).toMatchObject(VERSION);
  expect(res.headers["content-type"]).toMatch(/^application\/json/);
  expect(res.body).toMatchObject({ error, message: expect.any(String) });
}

describe("GET /api/ws/telemetry: the handshake", () => {
  let t: TestServer;
  const logLines: string[] = [];

  beforeAll(async () => {
    t = await TestServer.start(
      { LOG_LEVEL: "info" },
      { logger: createLogger("info", (l) => logLines.push(l)) },
    );
  });
  afterAll(async () => t.stop());

  it("answers 101 to a valid token, with the version headers", async () => {
    const { token } = await t.admin();
    const opened = await mustOpen(t.baseUrl, { token });
    expect(opened.headers).toMatchObject(VERSION);
    expect(opened.headers.upgrade).toBe("websocket");
    opened.ws.close();
  });

  it("answers 401 with headers and an {error, message} body to a missing token", async () => {
    expectError(await refused(t, {}), 401, "Unauthorized");
  });

  it("answers 401 to an empty or garbage token", async () => {
    expectError(await refused(t, { token: "" }), 401, "Unauthorized");
    expectError(await refused(t, { token: "not.a.jwt" }), 401, "Unauthorized");
  });

  it("answers 401 to a token signed with another key", async () => {
    const forged =
      "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ4Iiwic2lkIjoieSIsInJvbGUiOiJzdXBlcmFkbWluIiwiaXNzIjoiY2F1ZGFsIn0.c2lnbmF0dXJl";
    expectError(await refused(t, { token: forged }), 401, "Unauthorized");
  });

  it("answers 401 once the session is revoked by logout", async () => {
    const user = await t.userWithRole("supervisor");
    const logout = await t.request("/api/auth/logout", { method: "POST", token: user.token });
    expect(logout.status).toBe(200);
    expectError(await refused(t, { token: user.token }), 401, "Unauthorized");
  });

  it("answers 401 before looking at project_id", async () => {
    expectError(await refused(t, { token: "garbage", project_id: "nope" }), 401, "Unauthorized");
  });

  it("answers 400 naming project_id when it is not a UUID", async () => {
    const { token } = await t.admin();
    const res = await refused(t, { token, project_id: "not-a-uuid" });
    expectError(res, 400, "ValidationFailed");
    expect((res.body as { message: string }).message).toContain("project_id");
  });

  it("answers 404 to a project that does not exist, even for the superadmin", async () => {
    const { token } = await t.admin();
    expectError(await refused(t, { token, project_id: randomUUID() }), 404, "NotFound");
  });

  it("answers 404 to a project outside the caller's (existence is not revealed)", async () => {
    const mine = await t.project();
    const other = await t.project();
    const operador = await t.userWithRole("operador", [mine]);
    expectError(await refused(t, { token: operador.token, project_id: other }), 404, "NotFound");
    const opened = await mustOpen(t.baseUrl, { token: operador.token, project_id: mine });
    opened.ws.close();
  });

  it("answers 403 to a role that does not read telemetry", async () => {
    const reader = await t.userWithRole("anh_reader");
    expectError(await refused(t, { token: reader.token }), 403, "Forbidden");
  });

  it("answers a plain HTTP GET with 401 without a token and 426 with one", async () => {
    const anonymous = await t.request("/api/ws/telemetry");
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("x-api-version")).toBe("1");
    const { token } = await t.admin();
    const plain = await t.request(`/api/ws/telemetry?token=${encodeURIComponent(token)}`);
    expect(plain.status).toBe(426);
    expect(plain.headers.get("upgrade")).toBe("websocket");
    expect(plain.headers.get("x-powered-by")).toBe("Caudal/1.0");
    expect(plain.body).toMatchObject({ error: "UpgradeRequired" });
  });

  it("answers 404 with a body to an upgrade on a path that is not a WebSocket endpoint", async () => {
    const { token } = await t.admin();
    const result = await openStream(t.baseUrl, { token }, { path: "/api/ws/nothing-here" });
    if (isOpened(result)) throw new Error("opened");
    expectError(result, 404, "NotFound");
    // A route that is not a WebSocket endpoint gives its whole ordinary answer, body included.
    const health = await openStream(t.baseUrl, {}, { path: "/health" });
    if (isOpened(health)) throw new Error("opened");
    expect(health.status).toBe(200);
    expect(health.headers).toMatchObject(VERSION);
    expect(health.body).toMatchObject({ status: expect.any(String) });
  });

  it("logs connects and disconnects with the user, never the token", async () => {
    const user = await t.userWithRole("supervisor");
    const opened = await mustOpen(t.baseUrl, { token: user.token });
    const gone = new Promise((resolve) => opened.ws.once("close", resolve));
    opened.ws.close(1000);
    await gone;
    await expect.poll(() => logLines.some((l) => l.includes('"ws disconnected"'))).toBe(true);
    const mine = logLines.filter((l) => l.includes(user.id));
    expect(mine.some((l) => l.includes('"ws connected"'))).toBe(true);
    expect(mine.some((l) => l.includes('"ws disconnected"'))).toBe(true);
    expect(logLines.filter((l) => l.includes(user.token))).toEqual([]);
    expect(logLines.filter((l) => l.includes("token="))).toEqual([]);
  });

  it("is in the OpenAPI document: a GET with 101 and 401, tagged Telemetry", async () => {
    const res = await t.request<{
      paths: Record<string, { get?: Record<string, unknown> }>;
      components: { securitySchemes: Record<string, unknown> };
    }>("/docs/openapi.json");
    expect(res.status).toBe(200);
    const op = res.body.paths["/api/ws/telemetry"]?.get;
    expect(op).toMatchObject({
      tags: ["Telemetry"],
      security: [{ accessTokenQuery: [] }],
      responses: { "101": expect.any(Object), "401": expect.any(Object), "404": expect.any(Object) },
    });
    const params = (op?.parameters ?? []) as { name: string; in: string; required?: boolean }[];
    expect(params).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: "token", in: "query", required: true }),
        expect.objectContaining({ name: "project_id", in: "query", required: false }),
      ]),
    );
    expect(res.body.components.securitySchemes.accessTokenQuery).toMatchObject({
      type: "apiKey",
      in: "query",
      name: "token",
    });
  });
});

describe("GET /api/ws/telemetry: an expired token", () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await TestServer.start();
  });
  afterAll(async () => t.stop());

  it("answers 401 TokenExpired once the 15-minute access token has expired", async () => {
    const user = await t.userWithRole("operador");
    t.clock.advance(15 * 60 * 1000 + 1000);
    expectError(await refused(t, { token: user.token }), 401, "TokenExpired");
  });
});
