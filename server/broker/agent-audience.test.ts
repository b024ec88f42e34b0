import { randomUUID } from "node:crypto";
import mqtt, { type MqttClient } from "mqtt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Payload, topics } from "../../shared/mqtt/topics.ts";
import { type AgentProject, agentProject, connectMqtt, sleep, until } from "../testing/broker-fixtures.ts";
import { TestServer } from "../testing/harness.ts";

/*
 * Agent batches nobody subscribes to skip aedes' fan-out, and an ack only its agent subscribes to
 * is written straight to it (direct-delivery.ts): who else is listening decides, message by message.
 */
describe("agent batches and acks reach everyone subscribed", () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await TestServer.start();
  });
  afterAll(async () => t.stop());

  const open: MqttClient[] = [];
  const connect = async (...args: Parameters<typeof connectMqtt>) => {
    const c = await connectMqtt(...args);
    open.push(c);
    return c;
  };
  const seqsOf = (payloads: Buffer[]) =>
    payloads.map((p) => (JSON.parse(p.toString()) as { seq: number }).seq);

  async function agentSending(project: AgentProject) {
    const agent = await connect(t.server.broker.port, project.agent);
    const acks: Buffer[] = [];
    agent.on("message", (_topic, payload) => acks.push(payload));
    await agent.subscribeAsync(topics.ack(project.id), { qos: 1 });
    const agentId = randomUUID();
    const send = async (seq: number) => {
      const batch: Payload<"telemetry"> = {
        agent_id: agentId,
        seq,
        lane: "live",
        series: [
          { asset_id: project.asset, variable: "presion", points: [[Date.now() - 60_000 + seq, seq]] },
        ],
        alarms: [],
      };
      await agent.publishAsync(topics.telemetry(project.id), JSON.stringify(batch), { qos: 1 });
      await until(`the ack of batch ${seq}`, () => seqsOf(acks).includes(seq));
    };
    return { acks, send };
  }

  async function person(projectId: string, options: Parameters<typeof connectMqtt>[2] = {}) {
    const operador = await t.userWithRole("operador", [projectId]);
    const credentials = { username: operador.email, password: operador.token };
    const client = await connect(t.server.broker.port, credentials, options);
    const got: Buffer[] = [];
    client.on("message", (_topic, payload) => got.push(payload));
    return { client, got, credentials };
  }

  it("acknowledges each batch once to its agent, whether or not people watch the acks", async () => {
    const project = await agentProject(t);
    const { acks, send } = await agentSending(project);
    await send(1);

    const watcher = await person(project.id);
    await watcher.client.subscribeAsync(topics.ack(project.id), { qos: 0 });
    await send(2);
    await until("the watcher's ack", () => watcher.got.length === 1);

    await watcher.client.unsubscribeAsync(topics.ack(project.id));
    await send(3);
    await sleep(200);
    expect(seqsOf(acks)).toEqual([1, 2, 3]);
    expect(seqsOf(watcher.got)).toEqual([2]);
  });

  it("forwards batches to people from the moment they subscribe until they unsubscribe", async () => {
    const project = await agentProject(t);
    const { send } = await agentSending(project);
    await send(1);

    const watcher = await person(project.id);
    await watcher.client.subscribeAsync(topics.telemetry(project.id), { qos: 0 });
    await send(2);
    await until("the forwarded batch", () => watcher.got.length === 1);
    await watcher.client.unsubscribeAsync(topics.telemetry(project.id));
    await send(3);
    await sleep(200);
    expect(seqsOf(watcher.got)).toEqual([2]);
  });

  it("queues batches for a persistent session while it is away", async () => {
    const project = await agentProject(t);
    const { send } = await agentSending(project);
    const clientId = `console-${randomUUID()}`;
    const away = await person(project.id, { clientId, clean: false });
    await away.client.subscribeAsync(topics.telemetry(project.id), { qos: 1 });
    await away.client.endAsync();

    await send(1);
    // Listening before the CONNACK: the queued batch follows it at once.
    const back = mqtt.connect(`mqtt://127.0.0.1:${t.server.broker.port}`, {
      ...away.credentials,
      clientId,
      clean: false,
      reconnectPeriod: 0,
    });
    open.push(back);
    const got: Buffer[] = [];
    back.on("message", (_topic, payload) => got.push(payload));
    await until("the batch sent while away", () => got.length === 1);
    expect(seqsOf(got)).toEqual([1]);
  });
});
