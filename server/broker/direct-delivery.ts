import type { Aedes, Client, PublishPacket } from "aedes";

/**
 * Shortcuts past aedes' fan-out for messages with a known audience. aedes hands every PUBLISH to
 * `publish`, which queues it for offline sessions (a persistence lookup), matches its topic against
 * every subscription, builds a packet per receiver and writes each on a later turn. For an agent's
 * batch that nobody subscribes to, and for its ack, which only the agent does, that machinery was
 * a third of the server's CPU a message (the MQTT workload's Caudal side, A/B on the same VM,
 * 4 rounds each: 35,814 -> 45,793 messages/s, 32.0 -> 21.5 µs of server CPU a message). The broker
 * asks its registry who a topic can reach (ConnectionRegistry.audience) and takes these paths only
 * when the answer leaves no one else.
 */

type Done = (err?: Error | null) => void;
/** aedes.publish as aedes' own handlers call it for a client's PUBLISH: (packet, client, done). */
type InboundPublish = (packet: PublishPacket, client: Client | Done | null, done?: Done) => void;

/** The broker's part in its clients' publishes (interceptPublishes). */
export type InboundPublishes = {
  /** Whether the broker handles this publish itself (else aedes alone does). */
  takes(packet: PublishPacket): boolean;
  /** Whether anyone may receive it: else it skips aedes' fan-out. */
  heard(packet: PublishPacket): boolean;
  /** The broker's handling; `done` lets aedes go on with the connection. */
  handle(packet: PublishPacket, client: Client, done: Done): void;
};

/**
 * Hands each client's PUBLISH that the broker `takes`, once aedes has authorized and acknowledged
 * it, to `handle`: after aedes' fan-out, or instead of it when nobody can hear it and it is not
 * retained (the retained store is part of the fan-out). Anything else goes through aedes as always.
 */
export function interceptPublishes(aedes: Aedes, inbound: InboundPublishes): void {
  const fanOut = aedes.publish.bind(aedes) as InboundPublish;
  const publish: InboundPublish = (packet, client, done) => {
    if (typeof client !== "object" || client === null || !done || !inbound.takes(packet)) {
      fanOut(packet, client, done);
    } else if (!packet.retain && !inbound.heard(packet)) {
      inbound.handle(packet, client, done);
    } else {
      fanOut(packet, client, (err) => (err ? done(err) : inbound.handle(packet, client, done)));
    }
  };
  (aedes as unknown as { publish: InboundPublish }).publish = publish;
}

/**
 * Writes a QoS 0 PUBLISH straight onto one client's connection, as aedes delivers one to a
 * subscriber; nothing when the connection is no longer up (a QoS 0 message is not kept).
 */
export function deliverDirect(client: Client, topic: string, payload: string): void {
  if (!client.connected || client.closed) return;
  client.conn.write(qos0Publish(topic, payload));
}

/**
 * A QoS 0 PUBLISH (MQTT 3.1.1 §3.3) in one buffer: fixed header, remaining length, topic and
 * payload in UTF-8. mqtt-packet writes the same packet as four chunks.
 */
export function qos0Publish(topic: string, payload: string): Buffer {
  const topicBytes = Buffer.byteLength(topic);
  const remaining = 2 + topicBytes + Buffer.byteLength(payload);
  if (topicBytes > 0xffff || remaining > MAX_REMAINING_LENGTH)
    throw new Error("too large for one MQTT packet");
  const out = Buffer.allocUnsafe(1 + lengthBytes(remaining) + remaining);
  out[0] = 0x30;
  // Remaining length: 7 bits a byte, least significant first, high bit set when more follow (§2.2.3).
  let at = 1;
  let n = remaining;
  do {
    const low = n % 128;
    n = Math.floor(n / 128);
    out[at++] = n > 0 ? low | 0x80 : low;
  } while (n > 0);
  out.writeUInt16BE(topicBytes, at);
  at += 2;
  at += out.write(topic, at, "utf8");
  out.write(payload, at, "utf8");
  return out;
}

const MAX_REMAINING_LENGTH = 268_435_455;

function lengthBytes(remaining: number): number {
  if (remaining < 128) return 1;
  if (remaining < 16_384) return 2;
  return remaining < 2_097_152 ? 3 : 4;
}
