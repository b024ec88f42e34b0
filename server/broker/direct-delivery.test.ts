import type { AddressInfo } from "node:net";
import { createServer, type Server } from "node:net";
import { Aedes, type Client } from "aedes";
import type { MqttClient } from "mqtt";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { connectMqtt, sleep, until } from "../testing/broker-fixtures.ts";
import { deliverDirect, skipFanOut } from "./direct-delivery.ts";

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

  it("hands a publish nobody hears straight to `published`, acknowledged, and fans the rest out", async () => {
    skipFanOut(aedes, (packet) => packet.topic === "quiet");
    const publisher = await connect("publisher");
    const listener = await connect("listener");
    const got = received(listener);
    await listener.subscribeAsync("#", { qos: 1 });

    // QoS 1: publishAsync resolves on the PUBACK, which aedes still sends.
    await publisher.publishAsync("quiet", "one", { qos: 1 });
    await publisher.publishAsync("loud", "two", { qos: 1 });
    await until("the loud message", () => got.length === 1);
    await sleep(100);
    // Only what `unheard` left to aedes reached the subscriber; both reached the hook, in order.
    expect(got).toEqual(["loud two"]);
    expect(published).toEqual([
      { topic: "quiet", payload: "one", client: "publisher" },
      { topic: "loud", payload: "two", client: "publisher" },
    ]);
  });

  it("leaves retained publishes and the server's own to aedes", async () => {
    skipFanOut(aedes, () => true);
    const publisher = await connect("publisher");
    await publisher.publishAsync("kept", "retained", { qos: 1, retain: true });
    // The server's own publish (no client) is delivered as always.
    const listener = await connect("listener");
    const got = received(listener);
    await listener.subscribeAsync("#", { qos: 0 });
    await new Promise<void>((resolve, reject) =>
      aedes.publish(
        { cmd: "publish", topic: "server", payload: Buffer.from("own"), qos: 0, retain: false, dup: false },
        (err) => (err ? reject(err) : resolve()),
      ),
    );
    await until("the retained message and the server's", () => got.length === 2);
    expect(got.sort()).toEqual(["kept retained", "server own"]);
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

    deliverDirect(client, "caudal/v1/p/agent/ack", Buffer.from('{"seq":1}'));
    deliverDirect(client, "caudal/v1/p/agent/ack", Buffer.from('{"seq":2}'));
    await until("both acks", () => got.length === 2);
    expect(got).toEqual(['caudal/v1/p/agent/ack {"seq":1}', 'caudal/v1/p/agent/ack {"seq":2}']);

    await target.endAsync(true);
    await until("aedes to see the close", () => client.closed);
    expect(() => deliverDirect(client, "caudal/v1/p/agent/ack", Buffer.from("late"))).not.toThrow();
    await sleep(100);
    expect(otherGot).toEqual([]);
  });
});
