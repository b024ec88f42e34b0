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

/**
 * Makes aedes hand a client's PUBLISH that `unheard` says reaches no one straight to its
 * `published` hook, skipping the fan-out that would find no receiver. Retained publishes always
 * take aedes' path: the retained store is part of it.
 */
export function skipFanOut(aedes: Aedes, unheard: (packet: PublishPacket, client: Client) => boolean): void {
  const fanOut = aedes.publish.bind(aedes) as InboundPublish;
  const inbound: InboundPublish = (packet, client, done) => {
    if (typeof client === "object" && client !== null && done && !packet.retain && unheard(packet, client)) {
      // Not aedes' Packet (brokerId, brokerCounter): the broker's hook reads the topic and payload.
      aedes.published(packet as Parameters<Aedes["published"]>[0], client, done);
      return;
    }
    fanOut(packet, client, done);
  };
  (aedes as unknown as { publish: InboundPublish }).publish = inbound;
}

/**
 * Writes a QoS 0 PUBLISH straight onto one client's connection, as aedes delivers one to a
 * subscriber; nothing when the connection is no longer up (a QoS 0 message is not kept).
 */
export function deliverDirect(client: Client, topic: string, payload: Buffer): void {
  if (!client.connected || client.closed) return;
  writeToStream({ cmd: "publish", topic, payload, qos: 0, retain: false, dup: false }, client.conn);
}
