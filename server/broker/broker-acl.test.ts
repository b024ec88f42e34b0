import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import { requirePeer } from "../../scripts/testing/require-peer.ts";
import { topics } from "../../shared/mqtt/topics.ts";
import { TestServer } from "../testing/harness.ts";
import { tableProbe } from "../testing/table-probe.ts";
import { type Credentials, MosquittoSub, mosquittoMissing, mosquittoPub } from "./mosquitto-clients.ts";

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

async function until(
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs = 8_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

const heartbeat = (marker: string) =>
  JSON.stringify({
    agent_id: randomUUID(),
    agent_version: marker,
    uptime_seconds: 1,
    devices: [],
    buffer: { batches: 0, points: 0, oldest_ts: null, dropped_batches: 0 },
    config: { version: null, hash: null },
  });

requirePeer("mosquitto-clients", mosquittoMissing).describe(
  "broker ACL, with Debian's mosquitto_pub and mosquitto_sub",
  () => {
    let t: TestServer;
    let port: number;
    let a: { id: string; asset: string; agent: Credentials };
    let b: { id: string; asset: string; agent: Credentials };
    let admin: Credentials;
    let operador: Credentials & { token: string };
    const subs: MosquittoSub[] = [];
    const sub = async (c: Credentials, filters: string[]) => {
      const s = new MosquittoSub(port, c, filters);
      subs.push(s);
      await until("the SUBACK", () => s.subacks.length > 0 || s.exited);
      return s;
    };
    const project = async () => {
      const id = await t.project();
      const asset = await t.asset(id);
      const issued = await t.request<{ agent_token: string }>(`/api/edge/projects/${id}/agent-token`, {
        method: "POST",
        token: (await t.admin()).token,
      });
      return { id, asset, agent: { username: `agent:${id}`, password: issued.body.agent_token } };
    };
    const storedFor = async (projectId: string) => {
      const probe = tableProbe(t.server);
      return {
        batches: await probe.count("agent_batches", { project_id: projectId }),
        series: await probe.count("telemetry_series", { project_id: projectId }),
        status: await probe.count("agent_status", { project_id: projectId }),
      };
    };

    beforeAll(async () => {
      t = await TestServer.start();
      port = t.server.broker.port;
      const root = await t.admin();
      admin = { username: root.email, password: root.token };
      a = await project();
      b = await project();
      const op = await t.userWithRole("operador", [a.id]);
      operador = { username: op.email, password: op.token, token: op.token };
    });
    afterAll(async () => {
      await Promise.all(subs.map((s) => s.close()));
      await t.stop();
    });

    it("refuses a wrong agent token, a token of another project and a foreign access token at CONNACK", async () => {
      const topic = topics.heartbeat(a.id);
      const wrong = await mosquittoPub(
        port,
        { ...a.agent, password: "cat_not-the-right-token" },
        topic,
        "{}",
      );
      // [MQTT-3.2.2-3] return code 4: bad user name or password; mosquitto_pub exits with it.
      expect(wrong.code).toBe(4);
      expect(wrong.stderr).toContain("Connection Refused: bad user name or password");
      expect((await mosquittoPub(port, { ...b.agent, password: a.agent.password }, topic, "{}")).code).toBe(
        4,
      );
      expect((await mosquittoPub(port, { ...operador, password: "not-a-jwt" }, topic, "{}")).code).toBe(4);
      // A valid access token presented under someone else's e-mail: 5, not authorised.
      const foreign = await mosquittoPub(port, { ...operador, username: "someone@caudal.test" }, topic, "{}");
      expect(foreign.code).toBe(5);
      expect(foreign.stderr).toContain("Connection Refused: not authorised");
      expect((await storedFor(a.id)).status).toBe(0);
      // The right token gets in: the heartbeat is recorded.
      expect((await mosquittoPub(port, a.agent, topic, heartbeat("control"))).code).toBe(0);
      await until("the heartbeat recorded", async () => (await storedFor(a.id)).status === 1);
    });

    it("an agent publishes nothing into another project, nor outside its own agent topics", async () => {
      const watchB = await sub(admin, [`caudal/v1/${b.id}/#`]);
      const watchA = await sub(admin, [`caudal/v1/${a.id}/#`]);
      const forged = JSON.stringify({
        agent_id: randomUUID(),
        seq: 1,
        lane: "live",
        series: [{ asset_id: b.asset, variable: "forged", points: [[Date.now(), 1]] }],
      });
      await mosquittoPub(port, a.agent, topics.telemetry(b.id), forged, 1);
      await mosquittoPub(port, a.agent, topics.telemetry(b.id), forged, 0);
      await mosquittoPub(port, a.agent, topics.heartbeat(b.id), heartbeat("forged"), 0);
      await mosquittoPub(port, a.agent, topics.status(b.id), '{"status":"online","note":"forged"}', 1);
      // Its own project, but topics only the server publishes: acks, configuration, live values.
      await mosquittoPub(port, a.agent, topics.ack(a.id), '{"note":"forged"}', 0);
      await mosquittoPub(port, a.agent, topics.config(a.id), '{"note":"forged"}', 1);
      await mosquittoPub(port, a.agent, topics.live(a.id, a.asset, "p"), '{"note":"forged"}', 0);
      await sleep(300);
      expect(await storedFor(b.id)).toEqual({ batches: 0, series: 0, status: 0 });

      // Controls: the same subscribers do receive what B's agent and A's agent may publish.
      expect((await mosquittoPub(port, b.agent, topics.heartbeat(b.id), heartbeat("control-b"))).code).toBe(
        0,
      );
      expect((await mosquittoPub(port, a.agent, topics.heartbeat(a.id), heartbeat("control-a"))).code).toBe(
        0,
      );
      await until("the controls", () =>
        [watchA, watchB].every((w) => w.messages.some((m) => m.includes('"agent_version":"control'))),
      );
      await sleep(100);
      for (const w of [watchA, watchB]) expect(w.messages.filter((m) => m.includes("forged"))).toEqual([]);
      expect((await storedFor(b.id)).status).toBe(1);
    });

    it("a user subscribes to their project but publishes nothing", async () => {
      const watch = await sub(operador, [topics.heartbeat(a.id)]);
      expect(watch.subacks).toEqual([[1]]);
      await mosquittoPub(port, operador, topics.heartbeat(a.id), heartbeat("forged-by-user"), 0);
      await mosquittoPub(port, operador, topics.heartbeat(a.id), heartbeat("forged-by-user"), 1);
      await mosquittoPub(port, admin, topics.config(a.id), '{"note":"forged-by-user"}', 1);
      await sleep(300);
      await mosquittoPub(port, a.agent, topics.heartbeat(a.id), heartbeat("control-user"));
      await until("the agent's heartbeat", () => watch.messages.some((m) => m.includes("control-user")));
      await sleep(100);
      expect(watch.messages.filter((m) => m.includes("forged"))).toEqual([]);
      const [stored] = await tableProbe(t.server).rows<{ heartbeat: string }>("agent_status", {
        project_id: a.id,
      });
      expect(JSON.parse(stored?.heartbeat ?? "null").agent_version).toBe("control-user");
    });

    it("refuses $SYS and other projects named outright with SUBACK 0x80, keeping the rest", async () => {
      for (const filter of ["$SYS/#", `caudal/v1/${b.id}/#`, `caudal/v1/${b.id}/agent/heartbeat`]) {
        const denied = await sub(operador, [filter]);
        expect(denied.subacks, filter).toEqual([[128]]);
        expect((await denied.exit()).stderr).toContain("All subscription requests were denied");
      }
      expect((await sub(a.agent, [`caudal/v1/${b.id}/#`])).subacks).toEqual([[128]]);
      expect((await sub(admin, ["$SYS/#"])).subacks).toEqual([[128]]);
      expect((await sub(admin, ["caudal/v1/#"])).subacks).toEqual([[1]]);
      // One refused filter does not cost the others: the connection stays and delivers.
      const mixed = await sub(operador, [topics.heartbeat(a.id), topics.heartbeat(b.id)]);
      expect(mixed.subacks).toEqual([[1, 128]]);
      await mosquittoPub(port, b.agent, topics.heartbeat(b.id), heartbeat("from-b"));
      await mosquittoPub(port, a.agent, topics.heartbeat(a.id), heartbeat("from-a"));
      await until("A's heartbeat", () => mixed.messages.some((m) => m.includes("from-a")));
      expect(mixed.exited).toBe(false);
      expect(mixed.messages.filter((m) => m.includes("from-b"))).toEqual([]);
    });

    it("grants a person's every-project wildcards (#, caudal/v1/#, +) and delivers only the projects they see", async () => {
      const filters = ["#", "caudal/v1/#", "caudal/v1/+/agent/heartbeat", "+/+/+/agent/#"];
      const wide = await Promise.all(filters.map((f) => sub(operador, [f])));
      expect(wide.map((w) => w.subacks)).toEqual(filters.map(() => [[1]]));
      await mosquittoPub(port, b.agent, topics.heartbeat(b.id), heartbeat("wide-b"));
      await mosquittoPub(port, a.agent, topics.heartbeat(a.id), heartbeat("wide-a"));
      await until("A's heartbeat through every filter", () =>
        wide.every((w) => w.messages.some((m) => m.includes("wide-a"))),
      );
      await sleep(200);
      for (const w of wide) {
        expect(w.messages.filter((m) => m.includes(b.id))).toEqual([]);
        // Never the deployment, which is the agent's alone.
        expect(w.messages.filter((m) => m.startsWith(`${topics.config(a.id)} `))).toEqual([]);
      }
    });

    it("rotating the agent token drops the connection using the old one, and the old token stays out", async () => {
      const old = a.agent;
      const connected = await sub(old, [topics.ack(a.id)]);
      expect(connected.subacks).toEqual([[1]]);
      const issued = await t.request<{ agent_token: string }>(`/api/edge/projects/${a.id}/agent-token`, {
        method: "POST",
        token: (await t.admin()).token,
      });
      expect(issued.status).toBe(201);
      // Dropped at once; mosquitto_sub reconnects with the old token and is refused.
      const ended = await connected.exit();
      expect(ended.stderr).toContain("Connection Refused: bad user name or password");
      expect((await mosquittoPub(port, old, topics.heartbeat(a.id), heartbeat("old"))).code).toBe(4);
      a.agent = { ...old, password: issued.body.agent_token };
      expect((await mosquittoPub(port, a.agent, topics.heartbeat(a.id), heartbeat("new"))).code).toBe(0);
    });

    it("a logout ends the user's MQTT connection", async () => {
      const op = await t.userWithRole("operador", [a.id]);
      const watch = await sub({ username: op.email, password: op.token }, [topics.heartbeat(a.id)]);
      expect(watch.subacks).toEqual([[1]]);
      expect((await t.request("/api/auth/logout", { method: "POST", token: op.token })).status).toBe(200);
      const ended = await watch.exit();
      expect(ended.stderr).toContain("Connection Refused: bad user name or password");
    });
  },
);
