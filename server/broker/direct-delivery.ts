import type { Aedes, Client, PublishPacket } from "aedes";
import { writeToStream } from "mqtt-packet";

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
export function deliverDirect(client: Client, topic: string, payload: Buffer): void {
  if (!client.connected || client.closed) return;
  writeToStream({ cmd: "publish", topic, payload, qos: 0, retain: false, dup: false }, client.conn);
}
