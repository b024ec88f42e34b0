import type { z } from "zod";
import { decodeTelemetryFrame, isTelemetryFrame } from "../../shared/mqtt/telemetry-frame.ts";
import { type Payload, payloads, type TopicName, topics } from "../../shared/mqtt/topics.ts";
import { describeZodError } from "../http/validation.ts";
import { parseTelemetryPayload } from "./telemetry-payload.ts";

/** The contract topics agents publish (access.ts decides who may). */
export type AgentTopic = "telemetry" | "heartbeat" | "logs" | "configStatus" | "status" | "response";

type Handlers = {
  telemetry: (projectId: string, body: Payload<"telemetry">) => Promise<Payload<"ack">> | Payload<"ack">;
  heartbeat: (projectId: string, body: Payload<"heartbeat">) => Promise<void> | void;
  logs: (projectId: string, body: Payload<"logs">) => Promise<void> | void;
  configStatus: (projectId: string, body: Payload<"configStatus">) => Promise<void> | void;
  status: (projectId: string, body: Payload<"status">) => Promise<void> | void;
  response: (projectId: string, body: Payload<"response">) => void;
  invalid: (projectId: string, topic: string, reason: string) => void;
};

export type MessageRouter = Handlers;

/** An agent's publish, parsed once against its topic's schema. */
export type AgentMessage =
  | { [K in AgentTopic]: { valid: true; name: K; body: Payload<K> } }[AgentTopic]
  | { valid: false; name: TopicName; reason: string; json: unknown };

function checked<K extends AgentTopic>(
  name: K,
  result: z.ZodSafeParseResult<Payload<K>>,
  json: unknown,
): AgentMessage {
  return result.success
    ? ({ valid: true, name, body: result.data } as AgentMessage)
    : { valid: false, name, reason: describeZodError(result.error), json };
}

/**
 * Parses an agent's payload against the shared schema of its topic. The broker does this before
 * the message is forwarded or retained, so what fails reaches no one (issue 8 §2).
 */
export function parseAgentMessage(name: TopicName, raw: Buffer): AgentMessage {
  if (name === "telemetry" && isTelemetryFrame(raw)) {
    const frame = decodeTelemetryFrame(raw);
    // A refused frame is acknowledged with its reason when its header names the agent and seq.
    return frame.ok
      ? { valid: true, name, body: frame.batch }
      : { valid: false, name, reason: frame.reason, json: frame.sender };
  }
  let json: unknown;
  try {
    json = JSON.parse(raw.toString("utf8"));
  } catch {
    return { valid: false, name, reason: "payload is not JSON", json: undefined };
  }
  switch (name) {
    case "telemetry":
      return checked(name, parseTelemetryPayload(json), json);
    case "heartbeat":
    case "logs":
    case "configStatus":
    case "status":
    case "response":
      return checked(
        name,
        payloads[name].safeParse(json) as z.ZodSafeParseResult<Payload<typeof name>>,
        json,
      );
    default:
      return { valid: false, name, reason: `agents do not publish ${name}`, json };
  }
}

const PARSED = Symbol("agent message");
type Carrier = { [PARSED]?: AgentMessage };

/**
 * Keeps an agent's parsed publish on the packet object the parser made: aedes hands that object
 * from authorizePublish on to `publish` (direct-delivery.ts), where the broker handles it.
 */
export function carryMessage(packet: object, message: AgentMessage): void {
  (packet as Carrier)[PARSED] = message;
}

export function carriedMessage(packet: object): AgentMessage | undefined {
  return (packet as Carrier)[PARSED];
}

const TELEMETRY_SUFFIX = "/agent/telemetry";
/** The JSON of binary batches forwarded to people, made once per batch. */
const jsonOfFrames = new WeakMap<Buffer, Buffer>();

/**
 * What a person subscribed to an agent's topic receives of its publish: a binary batch as its JSON
 * (docs/mqtt.md: people read the JSON payloads whatever the agent sent), anything else as sent.
 * Only agents publish on agent/telemetry, and the broker forwards no refused one: a frame there
 * is decoded again, once, when someone receives it.
 */
export function payloadForPeople(topic: string, payload: Buffer): Buffer {
  if (!isTelemetryFrame(payload) || !topic.endsWith(TELEMETRY_SUFFIX)) return payload;
  let json = jsonOfFrames.get(payload);
  if (!json) {
    const frame = decodeTelemetryFrame(payload);
    if (!frame.ok) return payload;
    json = Buffer.from(JSON.stringify(frame.batch));
    jsonOfFrames.set(payload, json);
  }
  return json;
}

/**
 * One handler per contract topic (as aedes has one per packet type): hand the parsed payload to
 * its service, and for telemetry publish the application ack after commit.
 */
export async function routeMessage(
  handlers: MessageRouter,
  projectId: string,
  topic: string,
  message: AgentMessage,
  publish: (topic: string, body: unknown) => Promise<void>,
): Promise<void> {
  if (!message.valid) {
    handlers.invalid(projectId, topic, message.reason);
    if (message.name !== "telemetry") return;
    const seq = (message.json as { seq?: unknown } | undefined)?.seq;
    const agentId = (message.json as { agent_id?: unknown } | undefined)?.agent_id;
    // A batch that can never be valid is acknowledged with the error, or the agent would resend it forever.
    if (typeof seq === "number" && typeof agentId === "string") {
      const ack: Payload<"ack"> = {
        agent_id: agentId,
        seq,
        accepted: 0,
        duplicate: false,
        error: message.reason,
      };
      await publish(topics.ack(projectId), withCapabilities(ack));
    }
    return;
  }
  switch (message.name) {
    case "telemetry": {
      const ack = await handlers.telemetry(projectId, message.body);
      await publish(topics.ack(projectId), withCapabilities(ack));
      return;
    }
    case "heartbeat":
      return handlers.heartbeat(projectId, message.body);
    case "logs":
      return handlers.logs(projectId, message.body);
    case "configStatus":
      return handlers.configStatus(projectId, message.body);
    case "status":
      return handlers.status(projectId, message.body);
    case "response":
      return handlers.response(projectId, message.body);
  }
}

/**
 * Every ack says that this server takes binary batches (shared/mqtt/telemetry-frame.ts): an agent
 * sends them on a connection only once an ack on it said so, so an older server, which would
 * refuse them, is only ever sent JSON.
 */
function withCapabilities(ack: Payload<"ack">): Payload<"ack"> {
  ack.binary = true;
  return ack;
}
