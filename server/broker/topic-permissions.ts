import type { TopicName } from "../../shared/mqtt/topics.ts";
import type { Permission } from "../../shared/roles.ts";

/**
 * The permission a person needs to receive each contract topic: the one REST asks for the same
 * data. Live values, batches and their acks are telemetry (GET /api/telemetry); the configuration
 * and its outcome are config (GET …/deployments); heartbeats, logs and online/offline are the
 * agent's health and log (GET /api/edge/agents/{id}/health, …/logs: config:read).
 */
export const TOPIC_PERMISSION: Readonly<Record<TopicName, Permission | "agent-only">> = {
  live: "telemetry:read",
  telemetry: "telemetry:read",
  ack: "telemetry:read",
  heartbeat: "config:read",
  logs: "config:read",
  status: "config:read",
  // The deployment carries secrets the agent needs in the clear (the OPC UA password): no person
  // receives it. People read the configuration through REST (GET /api/edge/projects/{id}/full),
  // which never shows the password.
  config: "agent-only",
  configStatus: "config:read",
  // A test-read request carries the device's settings, the OPC UA password included.
  request: "agent-only",
  response: "config:read",
};

/** Each contract topic's levels after `caudal/v1/{project_id}/`; `*` stands for any one level. */
const TOPIC_LEVELS: readonly (readonly [TopicName, readonly string[]])[] = [
  ["telemetry", ["agent", "telemetry"]],
  ["ack", ["agent", "ack"]],
  ["heartbeat", ["agent", "heartbeat"]],
  ["logs", ["agent", "logs"]],
  ["status", ["agent", "status"]],
  ["config", ["config"]],
  ["configStatus", ["config", "status"]],
  ["request", ["agent", "request"]],
  ["response", ["agent", "response"]],
  ["live", ["live", "*", "*"]],
];

/**
 * Whether a subscription filter, every level of it, can match a contract topic that a person whose
 * role `holds` a permission may receive (MQTT 3.1.1 §4.7: `+` is one level, a trailing `#` any
 * number of levels, including none [MQTT-4.7.1-2]). The project level is left to the caller: here
 * it stands for any project. Agent-only topics never count: they are never delivered to a person.
 */
export function matchesReadableTopic(levels: readonly string[], holds: (p: Permission) => boolean): boolean {
  return TOPIC_LEVELS.some(([name, topic]) => {
    const permission = TOPIC_PERMISSION[name];
    return (
      permission !== "agent-only" &&
      holds(permission) &&
      filterMatches(levels, ["caudal", "v1", "*", ...topic])
    );
  });
}

function filterMatches(filter: readonly string[], topic: readonly string[]): boolean {
  for (let i = 0; i < filter.length; i++) {
    const level = filter[i];
    if (level === "#") return true;
    const actual = topic[i];
    if (actual === undefined) return false;
    if (level !== "+" && actual !== "*" && level !== actual) return false;
  }
  return filter.length === topic.length;
}
