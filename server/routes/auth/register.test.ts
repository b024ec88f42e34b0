import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { twoFactorUser } from "../../testing/fixtures/two-factor-fixtures.ts";
import { TestServer } from "../../testing/harness.ts";

type Body = { error: string; message: string; id: string; role: string; projects: string[] };

const newUser = (over: Record<string, unknown> = {}) => ({
  email: `self-${randomUUID().slice(0, 8)}@caudal.test`,
  name: "Self Registered",
  role: "operador",
  password: "password-123",
  ...over,
});

describe("POST /api/auth/register", () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await TestServer.start();
  });
  afterAll(async () => t.stop());

  const register = (body: unknown) => t.request<Body>("/api/auth/register", { body });

  it("403 until the first account exists, so self-registration cannot pre-empt setup", async () => {
    const early = await register(newUser());
    expect(early.status).toBe(403);
    expect(early.body.error).toBe("RegistrationDisabled");
    expect(early.body.message).toContain("setup");
    expect((await t.request("/api/auth/setup/status")).body).toEqual({
      requires_setup: true,
      has_users: false,
    });
    await t.admin();
  });

  it("201 with the User, who can then log in with no projects", async () => {
    const input = newUser({ role: "supervisor" });
    const res = await register(input);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      email: input.email,
      role: "supervisor",
      is_active: true,
      two_factor_enabled: false,
      projects: [],
    });
    expect(JSON.stringify(res.body)).not.toMatch(/password|argon/);
    const login = await t.login(input.email, input.password);
    expect(login.status).toBe(200);
    expect((login.body as unknown as Body).projects).toEqual([]);
  });

  it("403 when asking for superadmin or admin; nothing is created", async () => {
    for (const role of ["superadmin", "admin"]) {
      const input = newUser({ role });
      const res = await register(input);
      expect(res.status, role).toBe(403);
      expect(res.body.error).toBe("Forbidden");
      expect((await t.login(input.email, input.password)).status).toBe(401);
    }
  });

  it("409 for an email already taken", async () => {
    const input = newUser();
    expect((await register(input)).status).toBe(201);
    const dup = await register({ ...input, email: input.email.toUpperCase() });
    expect(dup.status).toBe(409);
  });

  it("400 naming each bad field; passwords are 8 to 256 characters", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ email: "x" }, "email"],
      [{ name: "" }, "name"],
      [{ role: "god" }, "role"],
      [{ password: "1234567" }, "password"],
      [{ password: "p".repeat(257) }, "password"],
    ];
    for (const [over, field] of cases) {
      const res = await register(newUser(over));
      expect(res.status, JSON.stringify(over)).toBe(400);
      expect(res.body.message).toMatch(new RegExp(`^${field}: `));
    }
    const malformed = await t.request<Body>("/api/auth/register", { rawBody: "{" });
    expect(malformed.status).toBe(400);
    expect(malformed.body.message).toBeTruthy();
    expect((await register(newUser({ password: "8 chars!" }))).status).toBe(201);
    expect((await register(newUser({ password: "p".repeat(256) }))).status).toBe(201);
  });
});

describe("POST /api/auth/register in production", () => {
  let prod: TestServer;
  beforeAll(async () => {
    prod = await TestServer.start({ NODE_ENV: "production" });
    // Setup done, so the refusal below is the production rule and not the first-account rule.
    await prod.admin();
  });
  afterAll(async () => prod.stop());

  it("403 RegistrationDisabled, and no user is created", async () => {
    const input = newUser();
    const res = await prod.request<Body>("/api/auth/register", { body: input });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe("RegistrationDisabled");
    expect(res.body.message).toContain("production");
    expect((await prod.login(input.email, input.password)).status).toBe(401);
  });
});

describe("login and register rate limit", () => {
  let limited: TestServer;
  beforeAll(async () => {
    limited = await TestServer.start({ LOGIN_RATE_LIMIT: "3" });
    // The first account (setup) must exist before self-registration creates any user.
    await limited.admin();
  });
  afterAll(async () => limited.stop());

  it("429 with Retry-After after LOGIN_RATE_LIMIT login attempts per minute per IP and email", async () => {
    const email = "limited@caudal.test";
    for (let i = 0; i < 3; i++) {
      expect((await limited.login(email, "wrong-password")).status).toBe(401);
    }
    const blocked = await limited.login(email, "wrong-password");
    expect(blocked.status).toBe(429);
    expect((blocked.body as unknown as Body).error).toBe("RateLimited");
    const retryAfter = Number(blocked.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // The email is compared without case; another email is counted separately.
    expect((await limited.login(email.toUpperCase(), "wrong-password")).status).toBe(429);
    expect((await limited.login("other@caudal.test", "wrong-password")).status).toBe(401);
    // A minute later the window has passed.
    limited.clock.advance(61_000);
    expect((await limited.login(email, "wrong-password")).status).toBe(401);
  });

  it("register is limited the same way", async () => {
    const email = `reg-${randomUUID().slice(0, 8)}@caudal.test`;
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      statuses.push((await limited.request("/api/auth/register", { body: newUser({ email }) })).status);
    }
    expect(statuses).toEqual([201, 409, 409, 429]);
  });

  it("password attempts on /2fa/disable share the login limit", async () => {
    const u = await twoFactorUser(limited);
    // userWithRole's login used one of the three attempts for this IP and email.
    const attempt = () =>
      limited.request<Body>("/api/auth/2fa/disable", {
        token: u.token,
        body: { password: "wrong-password", code: "123456" },
      });
    expect((await attempt()).body.error).toBe("InvalidCredentials");
    expect((await attempt()).body.error).toBe("InvalidCredentials");
    const blocked = await attempt();
    expect(blocked.status).toBe(429);
    expect(blocked.headers.get("retry-after")).toBeTruthy();
  });
});
