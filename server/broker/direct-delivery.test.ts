import type { AddressInfo } from "node:net";
import { createServer, type Server } from "node:net";
import { Aedes, type Client } from "aedes";
import type { MqttClient } from "mqtt";
import { generate } from "mqtt-packet";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { connectMqtt, sleep, until } from "../testing/broker-fixtures.ts";
import { deliverDirect, interceptPublishes, qos0Publish } from "./direct-delivery.ts";

/* The shortcuts past aedes' fan-out, on a real aedes over TCP with npm `mqtt` clients. */
describe("direct delivery", () => {
  let aedes: Aedes;
  let tcp: Server;
  let port: number;
  let published: { topic: string; payload: string; client: string | undefined }[];
  const clients = new Map<string, Client>();
  const open: MqttClient[] = [];

  beforeEach(async () => {
    published = [];
    aedes = await Aedes.createBroker({
      published: (packet, client, done) => {
        if (client)
          published.push({ topic: packet.topic, payload: packet.payload.toString(), client: client.id });
        done();
      },
    });
    aedes.on("client", (c) => clients.set(c.id, c));
    tcp = createServer((socket) => aedes.handle(socket));
    await new Promise<void>((resolve) => tcp.listen(0, "127.0.0.1", resolve));
    port = (tcp.address() as AddressInfo).port;
  });

  afterEach(async () => {
    for (const c of open.splice(0)) await c.endAsync(true);
    clients.clear();
    await new Promise<void>((resolve) => tcp.close(() => resolve()));
    await new Promise<void>((resolve) => aedes.close(() => resolve()));
  });

  const connect = async (clientId: string) => {
    const c = await connectMqtt(port, { username: "", password: "" }, { clientId });
    open.push(c);
    return c;
  };
  const received = (c: MqttClient) => {
    const got: string[] = [];
    c.on("message", (topic, payload) => got.push(`${topic} ${payload.toString()}`));
    return got;
  };

  const handledBy = (handled: string[], heard: (topic: string) => boolean) =>
    interceptPublishes(aedes, {
      takes: (packet) => packet.topic.startsWith("agent/"),
      heard: (packet) => heard(packet.topic),
      handle: (packet, _client, done) => {
        handled.push(`${packet.topic} ${packet.payload.toString()}`);
        done();
      },
    });

  it("handles what it takes after the fan-out, or instead of it when nobody hears it", async () => {
    const handled: string[] = [];
    handledBy(handled, (topic) => topic === "agent/loud");
    const publisher = await connect("publisher");
    const listener = await connect("listener");
    const got = received(listener);
    await listener.subscribeAsync("#", { qos: 1 });

    // QoS 1: publishAsync resolves on the PUBACK, which aedes still sends.
    await publisher.publishAsync("agent/quiet", "one", { qos: 1 });
    await publisher.publishAsync("agent/loud", "two", { qos: 1 });
    await publisher.publishAsync("other", "three", { qos: 1 });
    await until("the fanned-out messages", () => got.length === 2);
    await until("the handled ones", () => handled.length === 2);
    await sleep(100);
    // Subscribers got what was heard or not taken; the broker handled what it takes, in order.
    expect(got).toEqual(["agent/loud two", "other three"]);
    expect(handled).toEqual(["agent/quiet one", "agent/loud two"]);
    // aedes' own hook sees only what went through the fan-out.
    expect(published.map((m) => m.topic)).toEqual(["agent/loud", "other"]);
  });

  it("fans out a retained publish whoever hears it, and leaves the server's own publishes alone", async () => {
    const handled: string[] = [];
    handledBy(handled, () => false);
    const publisher = await connect("publisher");
    await publisher.publishAsync("agent/kept", "retained", { qos: 1, retain: true });
    await until("the retained publish handled", () => handled.length === 1);
    // Stored as retained: a later subscriber gets it; the server's own publish reaches it too.
    const listener = await connect("listener");
    const got = received(listener);
    await listener.subscribeAsync("#", { qos: 0 });
    await new Promise<void>((resolve, reject) =>
      aedes.publish(
        {
          cmd: "publish",
          topic: "agent/server",
          payload: Buffer.from("own"),
          qos: 0,
          retain: false,
          dup: false,
        },
        (err) => (err ? reject(err) : resolve()),
      ),
    );
    await until("the retained message and the server's", () => got.length === 2);
    expect(got.sort()).toEqual(["agent/kept retained", "agent/server own"]);
    expect(handled).toEqual(["agent/kept retained"]);
  });

  it("writes a QoS 0 publish onto one connection, and nothing once it is closed", async () => {
    const target = await connect("target");
    const other = await connect("other");
    const got = received(target);
    const otherGot = received(other);
    await target.subscribeAsync("caudal/v1/p/agent/ack", { qos: 1 });
    await other.subscribeAsync("#", { qos: 0 });
    const client = clients.get("target");
    if (!client) throw new Error("no aedes client for target");

    deliverDirect(client, "caudal/v1/p/agent/ack", '{"seq":1}');
    deliverDirect(client, "caudal/v1/p/agent/ack", '{"seq":2}');
    await until("both acks", () => got.length === 2);
    expect(got).toEqual(['caudal/v1/p/agent/ack {"seq":1}', 'caudal/v1/p/agent/ack {"seq":2}']);

    await target.endAsync(true);
    await until("aedes to see the close", () => client.closed);
    expect(() => deliverDirect(client, "caudal/v1/p/agent/ack", "late")).not.toThrow();
    await sleep(100);
    expect(otherGot).toEqual([]);
  });

  it.each([0, 1, 120, 200, 16_380, 20_000, 2_100_000])(
    "encodes a QoS 0 publish of %i payload bytes as mqtt-packet does",
    (size) => {
      const topic = "caudal/v1/proyecto-ñandú/agent/ack";
      const payload = "é".repeat(size >> 1) + "x".repeat(size & 1);
      expect(qos0Publish(topic, payload)).toEqual(
        generate({ cmd: "publish", topic, payload: Buffer.from(payload), qos: 0, retain: false, dup: false }),
      );
    },
  );
});
