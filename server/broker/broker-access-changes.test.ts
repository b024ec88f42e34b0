import { afterAll, beforeAll, expect, it } from "vitest";
import { requirePeer } from "../../scripts/testing/require-peer.ts";
import { topics } from "../../shared/mqtt/topics.ts";
import { ACCESS_TOKEN_TTL_SECONDS, signAccessToken } from "../services/auth/tokens.ts";
import {
  type AgentProject,
  agentProject,
  claimsOf,
  closed,
  connectMqtt,
  heartbeat,
  sleep,
  until,
} from "../testing/broker-fixtures.ts";
import { TestServer } from "../testing/harness.ts";
import { type Credentials, MosquittoSub, mosquittoMissing, mosquittoPub } from "./mosquitto-clients.ts";

/** The password TestServer.userWithRole gives its users. */
const USER_PASSWORD = "password-for-tests";

/**
 * Issue 8 §2 (High): a person's MQTT connection follows their access as it changes, as the
 * WebSocket stream does: unassignment, demotion and deactivation drop what is no longer allowed at
 * once, and the connection ends at the access token's expiry.
 */
requirePeer("mosquitto-clients", mosquittoMissing).describe("MQTT access follows the user's access", () => {
  let t: TestServer;
  let port: number;
  let a: AgentProject;
  let admin: Credentials & { token: string };
  const subs: MosquittoSub[] = [];
  const sub = async (c: Credentials, filters: string[]) => {
    const s = new MosquittoSub(port, c, filters);
    subs.push(s);
    await until("the SUBACK", () => s.subacks.length > 0 || s.exited);
    return s;
  };
  const operador = async () => {
    const u = await t.userWithRole("operador", [a.id]);
    return { ...u, username: u.email, password: u.token };
  };
  const adminUpdate = async (userId: string, body: Record<string, unknown>) =>
    t.request(`/api/admin/users/${userId}`, { method: "PUT", token: (await t.admin()).token, body });

  /** Publishes a heartbeat as A's agent and waits until `control` (who may see it) has it. */
  const publishAndSettle = async (marker: string, control: MosquittoSub) => {
    expect((await mosquittoPub(port, a.agent, topics.heartbeat(a.id), heartbeat(marker))).code).toBe(0);
    await until(`the control subscriber to get ${marker}`, () =>
      control.messages.some((m) => m.includes(marker)),
    );
    await sleep(150);
  };

  beforeAll(async () => {
    t = await TestServer.start();
    port = t.server.broker.port;
    const root = await t.admin();
    admin = { username: root.email, password: root.token, token: root.token };
    a = await agentProject(t);
  });
  afterAll(async () => {
    await Promise.all(subs.map((s) => s.close()));
    await t.stop();
  });

  it("unassigning the user from the project stops its messages at once, on a live subscription", async () => {
    const op = await operador();
    const control = await sub(admin, [topics.heartbeat(a.id)]);
    const watch = await sub(op, [topics.heartbeat(a.id)]);
    expect(watch.subacks).toEqual([[1]]);
    await publishAndSettle("before-unassign", control);
    expect(watch.messages.some((m) => m.includes("before-unassign"))).toBe(true);

    const other = await t.project();
    const res = await t.request(`/api/admin/users/${op.id}/projects`, {
      method: "PUT",
      token: (await t.admin()).token,
      body: { project_ids: [other] },
    });
    expect(res.status).toBe(200);
    await publishAndSettle("after-unassign", control);
    expect(watch.messages.filter((m) => m.includes("after-unassign"))).toEqual([]);
    expect(watch.exited).toBe(false);
    // The subscription was dropped, not muted: assigned again, the user must subscribe again.
    const back = await t.request(`/api/admin/users/${op.id}/projects`, {
      method: "PUT",
      token: (await t.admin()).token,
      body: { project_ids: [a.id] },
    });
    expect(back.status).toBe(200);
    await publishAndSettle("after-reassign", control);
    expect(watch.messages.filter((m) => m.includes("after-reassign"))).toEqual([]);
  });

  it("a wildcard stays through an unassignment and delivers only what the user may see now", async () => {
    const op = await operador();
    const control = await sub(admin, [topics.heartbeat(a.id)]);
    const watch = await sub(op, ["#"]);
    expect(watch.subacks).toEqual([[1]]);
    await publishAndSettle("wide-before-unassign", control);
    expect(watch.messages.some((m) => m.includes("wide-before-unassign"))).toBe(true);
    const res = await t.request(`/api/admin/users/${op.id}/projects`, {
      method: "PUT",
      token: (await t.admin()).token,
      body: { project_ids: [await t.project()] },
    });
    expect(res.status).toBe(200);
    await publishAndSettle("wide-after-unassign", control);
    expect(watch.messages.filter((m) => m.includes("wide-after-unassign"))).toEqual([]);
    // Assigned again, the same subscription delivers again: it was filtered, not dropped.
    const back = await t.request(`/api/admin/users/${op.id}/projects`, {
      method: "PUT",
      token: (await t.admin()).token,
      body: { project_ids: [a.id] },
    });
    expect(back.status).toBe(200);
    await publishAndSettle("wide-after-reassign", control);
    await until("the heartbeat again", () => watch.messages.some((m) => m.includes("wide-after-reassign")));
  });

  it("demoting the user to anh_reader drops the subscriptions its new role may not hold", async () => {
    const op = await operador();
    const control = await sub(admin, [topics.heartbeat(a.id)]);
    const watch = await sub(op, [`caudal/v1/${a.id}/#`]);
    expect(watch.subacks).toEqual([[1]]);
    await publishAndSettle("before-demotion", control);
    expect(watch.messages.some((m) => m.includes("before-demotion"))).toBe(true);

    const demoted = await adminUpdate(op.id, {
      email: op.email,
      name: "Demoted",
      role: "anh_reader",
      // The same password: a changed one would end every session, which is another test.
      password: USER_PASSWORD,
    });
    expect(demoted.status).toBe(200);
    await publishAndSettle("after-demotion", control);
    expect(watch.messages.filter((m) => m.includes("after-demotion"))).toEqual([]);
  });

  it("deactivating the user ends the connection", async () => {
    const op = await operador();
    const watch = await sub(op, [topics.heartbeat(a.id)]);
    expect(watch.subacks).toEqual([[1]]);
    const res = await adminUpdate(op.id, {
      email: op.email,
      name: "Gone",
      role: "operador",
      password: USER_PASSWORD,
      is_active: false,
    });
    expect(res.status).toBe(200);
    // mosquitto_sub reconnects with the same token and is refused.
    expect((await watch.exit()).stderr).toContain("Connection Refused: bad user name or password");
  });

  it("ends the connection when the access token expires, and the expired token is refused", async () => {
    const op = await operador();
    // The same live session, with a token that expires in 2 s (signed as if issued 14:58 ago).
    const { sub: userId, sid } = claimsOf(op.token);
    const issuedAt = new Date(t.clock.now().getTime() - (ACCESS_TOKEN_TTL_SECONDS - 2) * 1000);
    const shortLived = await signAccessToken(
      t.server.context.keys.jwt,
      { sub: userId, sid, role: "operador" },
      issuedAt,
    );
    const watch = await sub({ username: op.email, password: shortLived }, [topics.heartbeat(a.id)]);
    expect(watch.subacks).toEqual([[1]]);
    const started = Date.now();
    const ended = await Promise.race([watch.exit(), sleep(6_000).then(() => null)]);
    expect(ended, "still connected 6 s after the token expired").not.toBeNull();
    expect(ended?.stderr).toContain("Connection Refused: bad user name or password");
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("a SUBSCRIBE after the token's expiry is not granted, even before the expiry timer fires", async () => {
    const op = await operador();
    const client = await connectMqtt(port, op);
    try {
      const first = await client.subscribeAsync(topics.heartbeat(a.id), { qos: 1 });
      expect(first.map((g) => g.qos)).toEqual([1]);
      // The server's clock moves past exp; the wall-clock timer has not fired yet.
      t.clock.advance((ACCESS_TOKEN_TTL_SECONDS + 60) * 1000);
      const gone = closed(client);
      const late = await client
        .subscribeAsync(topics.config(a.id), { qos: 1 })
        .then((granted) => granted.map((g) => g.qos))
        .catch(() => "connection closed");
      expect([[128], "connection closed"]).toContainEqual(late);
      await Promise.race([gone, sleep(3_000).then(() => Promise.reject(new Error("not disconnected")))]);
    } finally {
      t.clock.advance(-(ACCESS_TOKEN_TTL_SECONDS + 60) * 1000);
      await client.endAsync(true);
    }
  });
});
