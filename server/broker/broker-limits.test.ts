import { randomUUID } from "node:crypto";
import { connect, type Socket } from "node:net";
import type { MqttClient } from "mqtt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requirePeer } from "../../scripts/testing/require-peer.ts";
import { topics } from "../../shared/mqtt/topics.ts";
import {
  type AgentProject,
  agentProject,
  closed,
  connectMqtt,
  heartbeat,
  sleep,
  until,
} from "../testing/broker-fixtures.ts";
import { TestServer } from "../testing/harness.ts";
import { tableProbe } from "../testing/table-probe.ts";
import { MqttBroker } from "./broker.ts";
import { agentMessageHandlers } from "./handlers.ts";
import { type Credentials, MosquittoSub, mosquittoMissing, mosquittoPub } from "./mosquitto-clients.ts";

const MiB = 1024 * 1024;

/** Issue 8 §2 (Medium, Low): packet size, retain, payload schemas, connection caps. */
requirePeer("mosquitto-clients", mosquittoMissing).describe("broker limits", () => {
  let t: TestServer;
  let port: number;
  let admin: Credentials;
  const subs: MosquittoSub[] = [];
  const clients: MqttClient[] = [];
  const sub = async (c: Credentials, filters: string[]) => {
    const s = new MosquittoSub(port, c, filters);
    subs.push(s);
    await until("the SUBACK", () => s.subacks.length > 0 || s.exited);
    return s;
  };
  const mqttClient = async (c: Credentials, clientId?: string) => {
    const client = await connectMqtt(port, c, clientId ? { clientId } : {});
    clients.push(client);
    return client;
  };
  const storedHeartbeat = async (projectId: string) => {
    const [row] = await tableProbe(t.server).rows<{ heartbeat: string | null }>("agent_status", {
      project_id: projectId,
    });
    return row?.heartbeat ?? null;
  };

  beforeAll(async () => {
    t = await TestServer.start();
    port = t.server.broker.port;
    const root = await t.admin();
    admin = { username: root.email, password: root.token };
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.endAsync(true)));
    await Promise.all(subs.map((s) => s.close()));
    await t.stop();
  });

  describe("packet size (MQTT_MAX_PACKET_BYTES, default 4 MiB)", () => {
    let p: AgentProject;
    beforeAll(async () => {
      p = await agentProject(t);
    });

    it("a 5 MiB publish closes the connection before the body is read; nothing is stored or forwarded", async () => {
      const watch = await sub(admin, [`caudal/v1/${p.id}/#`]);
      const agent = await mqttClient(p.agent);
      // A heartbeat the schema accepts (agent_version has no length limit), only too large.
      const huge = heartbeat(`too-large-${"x".repeat(5 * MiB)}`);
      const heapBefore = process.memoryUsage().heapUsed;
      const started = performance.now();
      const gone = closed(agent);
      const acked = agent.publishAsync(topics.heartbeat(p.id), huge, { qos: 1 }).then(
        () => true,
        () => false,
      );
      await Promise.race([gone, sleep(5_000).then(() => Promise.reject(new Error("still connected")))]);
      const closedAfterMs = performance.now() - started;
      expect(await Promise.race([acked, sleep(200).then(() => false)])).toBe(false);
      await sleep(300);
      expect(watch.messages.filter((m) => m.includes("too-large"))).toEqual([]);
      expect(await storedHeartbeat(p.id)).toBeNull();
      // Measured for the report (the client's own 5 MiB buffer is included in the heap figure).
      console.info(
        `5 MiB publish: closed after ${closedAfterMs.toFixed(0)} ms, heap +${((process.memoryUsage().heapUsed - heapBefore) / MiB).toFixed(1)} MiB`,
      );
    });

    it("applies over MQTT/WebSocket too (/mqtt)", async () => {
      const client = await connectMqtt(port, p.agent, {
        protocol: "ws",
        port: t.server.port,
        path: "/mqtt",
      });
      clients.push(client);
      await client.publishAsync(topics.heartbeat(p.id), heartbeat("over-websocket"), { qos: 1 });
      await until(
        "the heartbeat stored",
        async () => (await storedHeartbeat(p.id))?.includes("over-websocket") === true,
      );
      const gone = closed(client);
      client.publish(topics.heartbeat(p.id), heartbeat(`too-large-ws-${"x".repeat(5 * MiB)}`), { qos: 1 });
      await Promise.race([gone, sleep(5_000).then(() => Promise.reject(new Error("still connected")))]);
      await sleep(200);
      expect(await storedHeartbeat(p.id)).toContain("over-websocket");
    });

    it("a packet just under the limit is accepted (control)", async () => {
      const agent = await mqttClient(p.agent);
      const big = heartbeat(`just-under-${"y".repeat(4 * MiB - 4 * 1024)}`);
      await agent.publishAsync(topics.heartbeat(p.id), big, { qos: 1 });
      await until(
        "the heartbeat stored",
        async () => (await storedHeartbeat(p.id))?.includes("just-under") === true,
      );
      expect(agent.connected).toBe(true);
    });
  });

  describe("retain and payload schemas", () => {
    let p: AgentProject;
    let watch: MosquittoSub;
    beforeAll(async () => {
      p = await agentProject(t);
      const op = await t.userWithRole("operador", [p.id]);
      watch = await sub({ username: op.email, password: op.token }, [`caudal/v1/${p.id}/#`]);
    });

    it("refuses retain on every agent topic except agent/status", async () => {
      const retained: [string, string][] = [
        [topics.heartbeat(p.id), heartbeat("retained-heartbeat")],
        [
          topics.telemetry(p.id),
          JSON.stringify({
            agent_id: randomUUID(),
            seq: 1,
            lane: "live",
            series: [{ asset_id: p.asset, variable: "retained-telemetry", points: [[Date.now(), 1]] }],
          }),
        ],
        [
          topics.logs(p.id),
          JSON.stringify({
            agent_id: randomUUID(),
            entries: [
              { level: "info", category: "x", message: "retained-logs", timestamp: new Date().toISOString() },
            ],
          }),
        ],
        [
          topics.configStatus(p.id),
          JSON.stringify({
            agent_id: randomUUID(),
            deployment_id: randomUUID(),
            version: 1,
            hash: "retained-config-status",
            status: "applied",
          }),
        ],
      ];
      for (const [topic, body] of retained) await mosquittoPub(port, p.agent, topic, body, 1, true);
      expect(
        (await mosquittoPub(port, p.agent, topics.status(p.id), '{"status":"online"}', 1, true)).code,
      ).toBe(0);
      await until("the retained status", () => watch.messages.some((m) => m.includes('"online"')));
      await sleep(200);
      expect(watch.messages.filter((m) => m.includes("retained-"))).toEqual([]);
      // A later subscriber gets the retained status and nothing else.
      const late = await sub(admin, [`caudal/v1/${p.id}/#`]);
      await until("the retained status", () => late.messages.length > 0);
      await sleep(300);
      expect(late.messages.map((m) => m.split(" ")[0])).toEqual([topics.status(p.id)]);
    });

    it("a payload that fails its topic's schema reaches no subscriber and is never retained", async () => {
      const agentId = randomUUID();
      const bad: [string, string, boolean][] = [
        [topics.heartbeat(p.id), '{"agent_version":"bad-heartbeat"}', false],
        [topics.heartbeat(p.id), "bad-not-json", false],
        [topics.telemetry(p.id), JSON.stringify({ agent_id: agentId, seq: 7, note: "bad-telemetry" }), false],
        [
          topics.telemetry(p.id),
          JSON.stringify({
            agent_id: agentId,
            seq: 8,
            lane: "live",
            series: [{ asset_id: randomUUID(), variable: "bad-\u0000", points: [[Date.now(), 1]] }],
          }),
          false,
        ],
        [topics.logs(p.id), '{"entries":"bad-logs"}', false],
        [topics.configStatus(p.id), '{"status":"bad-config-status"}', false],
        [topics.status(p.id), '{"status":"bad-status"}', true],
        [topics.status(p.id), "", true],
      ];
      for (const [topic, body, retain] of bad) {
        expect((await mosquittoPub(port, p.agent, topic, body, 1, retain)).code, body).toBe(0);
      }
      // The invalid batch is still acknowledged with its error, or the agent would resend it forever.
      await until("the error acks", () =>
        [7, 8].every((seq) =>
          watch.messages.some((m) => m.startsWith(topics.ack(p.id)) && m.includes(`"seq":${seq}`)),
        ),
      );
      // A NUL in a variable (PostgreSQL's text cannot hold one) is refused before any write, by name.
      const nulAck = watch.messages.find((m) => m.startsWith(topics.ack(p.id)) && m.includes('"seq":8'));
      expect(nulAck).toContain("must not contain the NUL character");
      await mosquittoPub(port, p.agent, topics.heartbeat(p.id), heartbeat("good-control"));
      await until("the control", () => watch.messages.some((m) => m.includes("good-control")));
      await sleep(100);
      expect(watch.messages.filter((m) => m.includes("bad-"))).toEqual([]);
      // The earlier valid retained status stands: neither bad one replaced or cleared it.
      const late = await sub(admin, [topics.status(p.id)]);
      await until("the retained status", () => late.messages.length > 0);
      expect(late.messages).toEqual([`${topics.status(p.id)} {"status":"online"}`]);
    });
  });

  describe("connection caps", () => {
    it("a new connection with the agent's token replaces the old one (whatever its client id)", async () => {
      const p = await agentProject(t);
      const first = await mqttClient(p.agent, `one-${randomUUID()}`);
      const firstGone = closed(first);
      const second = await mqttClient(p.agent, `two-${randomUUID()}`);
      await Promise.race([firstGone, sleep(3_000).then(() => Promise.reject(new Error("old kept")))]);
      const others: MqttClient[] = [];
      for (let i = 0; i < 5; i++) others.push(await mqttClient(p.agent, `n${i}-${randomUUID()}`));
      await sleep(200);
      expect([first, second, ...others].map((c) => c.connected)).toEqual([
        false,
        false,
        false,
        false,
        false,
        false,
        true,
      ]);
    });

    it("caps one user's simultaneous connections", async () => {
      const p = await agentProject(t);
      const op = await t.userWithRole("operador", [p.id]);
      const creds = { username: op.email, password: op.token };
      const open: MqttClient[] = [];
      for (let i = 0; i < 10; i++) open.push(await mqttClient(creds));
      // [MQTT-3.2.2-3] return code 3, server unavailable: try again later.
      await expect(connectMqtt(port, creds)).rejects.toThrow(/Server unavailable/i);
      await open[0]?.endAsync();
      await sleep(100);
      await mqttClient(creds);
    });
  });

  describe("sockets that have not authenticated", () => {
    let broker: MqttBroker;
    const sockets: Socket[] = [];
    const rawSocket = (brokerPort: number) =>
      new Promise<{ socket: Socket; closed: Promise<number> }>((resolve, reject) => {
        const socket = connect(brokerPort, "127.0.0.1");
        sockets.push(socket);
        const opened = performance.now();
        const ended = new Promise<number>((r) => socket.once("close", () => r(performance.now() - opened)));
        socket.once("error", () => {});
        socket.once("connect", () => resolve({ socket, closed: ended }));
        socket.once("error", reject);
      });
    beforeAll(async () => {
      const ctx = t.server.context;
      broker = new MqttBroker(ctx, agentMessageHandlers(ctx, t.server.telemetry), {
        maxPendingConnections: 3,
        connectTimeoutMs: 500,
      });
      await broker.start(0, "127.0.0.1");
    });
    afterAll(async () => {
      for (const s of sockets) s.destroy();
      await broker.stop();
    });

    it("are limited in number, and closed when no CONNECT arrives in time", async () => {
      const silent = await Promise.all([1, 2, 3].map(() => rawSocket(broker.port)));
      await sleep(50);
      const extra = await rawSocket(broker.port);
      const extraClosedAfter = await Promise.race([extra.closed, sleep(400).then(() => -1)]);
      expect(extraClosedAfter).toBeGreaterThanOrEqual(0);
      expect(extraClosedAfter).toBeLessThan(300);
      // The first three go at the CONNECT timeout.
      const timedOut = await Promise.all(silent.map((s) => s.closed));
      for (const ms of timedOut) {
        expect(ms).toBeGreaterThanOrEqual(450);
        expect(ms).toBeLessThan(2_000);
      }
      // Then the slots are free again for a real client.
      const p = await agentProject(t);
      const client = await connectMqtt(broker.port, p.agent);
      expect(client.connected).toBe(true);
      await client.endAsync(true);
    });
  });
});
