import type { z } from "zod";
import { type Payload, parseTopic, payloads, type TopicName, topics } from "../../shared/mqtt/topics.ts";
import { describeZodError } from "../http/validation.ts";
import { parseTelemetryPayload } from "./telemetry-payload.ts";

type Handlers = {
  telemetry: (projectId: string, body: Payload<"telemetry">) => Promise<Payload<"ack">> | Payload<"ack">;
  heartbeat: (projectId: string, body: Payload<"heartbeat">) => void;
  logs: (projectId: string, body: Payload<"logs">) => void;
  configStatus: (projectId: string, body: Payload<"configStatus">) => void;
  status: (projectId: string, body: Payload<"status">) => void;
  invalid: (projectId: string, topic: string, reason: string) => void;
};

export type MessageRouter = Handlers;

/**
 * One handler per contract topic (as aedes has one per packet type): parse against the shared
 * schema, hand to the service, and for telemetry publish the application ack after commit.
 */
export async function routeMessage(
  handlers: MessageRouter,
  projectId: string,
  topic: string,
  raw: Buffer,
  publish: (topic: string, body: unknown) => Promise<void>,
): Promise<void> {
  const parsed = parseTopic(topic);
  if (!parsed || parsed.projectId !== projectId) return;
  let json: unknown;
  try {
    json = JSON.parse(raw.toString("utf8"));
  } catch {
    handlers.invalid(projectId, topic, "payload is not JSON");
    return;
  }
  const dispatch = <T>(schema: z.ZodType<T>, value: unknown, handle: (body: T) => void): void => {
    const body = schema.safeParse(value);
    if (body.success) handle(body.data);
    else handlers.invalid(projectId, topic, describeZodError(body.error));
  };
  const name: TopicName = parsed.name;
  switch (name) {
    case "telemetry": {
      const body = parseTelemetryPayload(json);
      if (!body.success) {
        handlers.invalid(projectId, topic, describeZodError(body.error));
        const seq = (json as { seq?: unknown }).seq;
        const agentId = (json as { agent_id?: unknown }).agent_id;
        // A batch that can never be valid is acknowledged with the error, or the agent would resend it forever.
        if (typeof seq === "number" && typeof agentId === "string") {
          await publish(topics.ack(projectId), {
            agent_id: agentId,
            seq,
            accepted: 0,
            duplicate: false,
            error: describeZodError(body.error),
          });
        }
        return;
      }
      const ack = await handlers.telemetry(projectId, body.data);
      await publish(topics.ack(projectId), ack);
      return;
    }
    case "heartbeat":
      return dispatch(payloads.heartbeat, json, (b) => handlers.heartbeat(projectId, b));
    case "logs":
      return dispatch(payloads.logs, json, (b) => handlers.logs(projectId, b));
    case "configStatus":
      return dispatch(payloads.configStatus, json, (b) => handlers.configStatus(projectId, b));
    case "status":
      return dispatch(payloads.status, json, (b) => handlers.status(projectId, b));
    default:
      return;
  }
}
