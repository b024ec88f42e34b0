import { randomUUID } from "node:crypto";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claimsOf, connectMqtt } from "../../testing/broker-fixtures.ts";
import { TestServer } from "../../testing/harness.ts";
import { isOpened, openStream } from "../../testing/ws-test-client.ts";

type Claim = "exp" | "iat" | "sub";

/**
 * Issue 28 §1 (low): an access token signed with the server's own key but missing `exp`, `iat` or
 * `sub` is no token the server issued, and every surface refuses it the same way: HTTP (routes that
 * accepted a token without `exp` on first use, and one that refused it), the WebSocket stream and
 * MQTT. A production-mode server, on SQLite and on PostgreSQL.
 */
describe("access tokens without exp, iat or sub", () => {
  let t: TestServer;
  let admin: { token: string; email: string };

  beforeAll(async () => {
    t = await TestServer.start({ NODE_ENV: "production" });
    admin = await t.admin();
  });
  afterAll(async () => t?.stop());

  /**
   * The superadmin's live session, signed with the server's key, without `missing`. Each token is
   * new (its own jti): a token checked before must not decide the next check.
   */
  async function token(missing: Claim | null): Promise<string> {
    const { sub, sid } = claimsOf(admin.token);
    const iat = Math.floor(t.clock.now().getTime() / 1000);
    let jwt = new SignJWT({ sid, role: "superadmin" })
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setIssuer("caudal")
      .setJti(randomUUID());
    if (missing !== "sub") jwt = jwt.setSubject(sub);
    if (missing !== "iat") jwt = jwt.setIssuedAt(iat);
    if (missing !== "exp") jwt = jwt.setExpirationTime(iat + 900);
    return jwt.sign(t.server.context.keys.jwt);
  }

  const ROUTES = ["/api/edge/projects", "/api/admin/users", "/api/dashboard/summary"];

  it("the same token with all three is accepted everywhere (the tokens below differ by one claim)", async () => {
    for (const path of ROUTES) {
      const res = await t.request(path, { token: await token(null) });
      expect(res.status, `${path}: ${res.text}`).toBe(200);
    }
    const stream = await openStream(t.baseUrl, { token: await token(null) });
    expect(isOpened(stream)).toBe(true);
    if (isOpened(stream)) stream.ws.close();
    const client = await connectMqtt(t.server.broker.port, {
      username: admin.email,
      password: await token(null),
    });
    await client.endAsync();
  });

  for (const missing of ["exp", "iat", "sub"] as const) {
    for (const path of ROUTES) {
      it(`without ${missing}: ${path} answers 401 from the first use`, async () => {
        const res = await t.request<{ error: string; message: string }>(path, {
          token: await token(missing),
        });
        expect(res.status, res.text).toBe(401);
        expect(res.body.error).toBe("Unauthorized");
      });
    }

    it(`without ${missing}: the WebSocket stream answers 401`, async () => {
      const stream = await openStream(t.baseUrl, { token: await token(missing) });
      if (isOpened(stream)) stream.ws.close();
      expect(isOpened(stream) ? 101 : stream.status).toBe(401);
    });

    it(`without ${missing}: MQTT refuses the login`, async () => {
      const login = connectMqtt(t.server.broker.port, {
        username: admin.email,
        password: await token(missing),
      });
      await expect(login).rejects.toThrow(/bad user ?name or password/i);
    });
  }
});
