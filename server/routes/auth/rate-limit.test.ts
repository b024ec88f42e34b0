import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadServerConfig } from "../../config.ts";
import { TestServer } from "../../testing/harness.ts";

type ErrorBody = { error: string; message: string };

const login = (t: TestServer, email: string) =>
  t.request<ErrorBody>("/api/auth/login", { body: { email, password: "wrong password" } });

describe("login rate limits: per address and email, and per address across emails", () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await TestServer.start({ LOGIN_RATE_LIMIT: "3", LOGIN_RATE_LIMIT_PER_ADDRESS: "5" });
    await t.admin();
  });
  afterAll(async () => t.stop());

  it("one password sprayed over many accounts from one address is cut off at LOGIN_RATE_LIMIT_PER_ADDRESS", async () => {
    for (let i = 0; i < 5; i++) {
      const res = await login(t, `spray-${i}@caudal.test`);
      expect(res.status, res.text).toBe(401);
    }
    const sixth = await login(t, "spray-5@caudal.test");
    expect(sixth.status).toBe(429);
    expect(sixth.body.error).toBe("RateLimited");
    expect(Number(sixth.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    // Register counts against the same address budget, and so does the right password.
    const register = await t.request<ErrorBody>("/api/auth/register", {
      body: { email: "new@caudal.test", name: "New", role: "operador", password: "long enough" },
    });
    expect(register.status).toBe(429);
    const admin = await t.admin();
    expect((await t.login(admin.email, admin.password)).status).toBe(429);
  });

  it("the window ends after a minute", async () => {
    t.clock.advance(61_000);
    expect((await login(t, "after-window@caudal.test")).status).toBe(401);
  });

  it("the per address and email limit still applies below the address limit", async () => {
    t.clock.advance(61_000);
    for (let i = 0; i < 3; i++) expect((await login(t, "one@caudal.test")).status).toBe(401);
    expect((await login(t, "one@caudal.test")).status).toBe(429);
  });
});

describe("LOGIN_RATE_LIMIT_PER_ADDRESS", () => {
  const key = randomBytes(32).toString("base64");
  it("defaults to 100 attempts per minute", () => {
    expect(loadServerConfig({ TOTP_SECRET_ENCRYPTION_KEY: key }).LOGIN_RATE_LIMIT_PER_ADDRESS).toBe(100);
    expect(
      loadServerConfig({ TOTP_SECRET_ENCRYPTION_KEY: key, LOGIN_RATE_LIMIT_PER_ADDRESS: "250" })
        .LOGIN_RATE_LIMIT_PER_ADDRESS,
    ).toBe(250);
  });

  it("must be a positive integer", () => {
    for (const bad of ["0", "-1", "1.5", "many"]) {
      expect(() =>
        loadServerConfig({ TOTP_SECRET_ENCRYPTION_KEY: key, LOGIN_RATE_LIMIT_PER_ADDRESS: bad }),
      ).toThrow(/LOGIN_RATE_LIMIT_PER_ADDRESS/);
    }
  });
});
