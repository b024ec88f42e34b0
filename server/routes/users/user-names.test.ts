import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiResponse, TestServer } from "../../testing/harness.ts";

type ErrorBody = { error: string; message: string };

const BAD_NAMES = [
  "nul\u0000byte",
  "\u001b[31mred\u001b[0m",
  "two\r\nlines",
  "tab\there",
  "del\u007f",
  "bell\u0007",
];

function expectNameRefused(res: ApiResponse, what: string): void {
  expect(res.status, `${what}: ${res.text}`).toBe(400);
  const body = res.body as ErrorBody;
  expect(body.error).toBe("ValidationFailed");
  expect(body.message).toContain("name: must not contain control characters");
}

/** User names end up in audit logs, exports and reports: no control characters, as project names. */
describe("user names refuse control characters", () => {
  let t: TestServer;
  let token: string;
  beforeAll(async () => {
    t = await TestServer.start();
    token = (await t.admin()).token;
  });
  afterAll(async () => t.stop());

  const user = (name: string) => ({
    email: `u-${randomUUID().slice(0, 8)}@caudal.test`,
    name,
    role: "operador",
    password: "long enough",
  });

  it("POST /api/admin/users", async () => {
    for (const name of BAD_NAMES) {
      expectNameRefused(
        await t.request("/api/admin/users", { token, body: user(name) }),
        JSON.stringify(name),
      );
    }
  });

  it("PUT /api/admin/users/{id}", async () => {
    const created = await t.request<{ id: string }>("/api/admin/users", { token, body: user("Ana") });
    expect(created.status).toBe(201);
    for (const name of BAD_NAMES) {
      const res = await t.request(`/api/admin/users/${created.body.id}`, {
        method: "PUT",
        token,
        body: user(name),
      });
      expectNameRefused(res, JSON.stringify(name));
    }
  });

  it("POST /api/auth/register and /api/auth/setup/register", async () => {
    for (const name of BAD_NAMES) {
      expectNameRefused(
        await t.request("/api/auth/register", { body: user(name) }),
        `register ${JSON.stringify(name)}`,
      );
    }
    const fresh = await TestServer.start();
    try {
      expectNameRefused(await fresh.request("/api/auth/setup/register", { body: user("a\u0000") }), "setup");
    } finally {
      await fresh.stop();
    }
  });

  it("accepts letters of any script, spaces and punctuation", async () => {
    for (const name of ["José Pérez-Núñez", "O'Brien, Jr.", "李小龍"]) {
      const res = await t.request<{ name: string }>("/api/admin/users", { token, body: user(name) });
      expect(res.status, res.text).toBe(201);
      expect(res.body.name).toBe(name);
    }
  });
});
