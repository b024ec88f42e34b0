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

/** Whether a topic reaches people at all (with the permission it names). */
export function forPeople(name: TopicName): boolean {
  return TOPIC_PERMISSION[name] !== "agent-only";
}

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
 * The permissions a subscription filter needs, given its levels after the project level: one per
 * contract topic the filter can match (MQTT 3.1.1 §4.7: `+` is one level, a trailing `#` is any
 * number of levels, including none [MQTT-4.7.1-2]). Agent-only topics need none here: they are
 * never delivered to a person (access.ts, mayReceive).
 */
export function permissionsForFilter(levels: readonly string[]): Set<Permission> {
  const needed = new Set<Permission>();
  for (const [name, topic] of TOPIC_LEVELS) {
    const permission = TOPIC_PERMISSION[name];
    if (permission !== "agent-only" && filterMatches(levels, topic)) needed.add(permission);
  }
  return needed;
}

/** Whether a filter names agent-only topics and nothing else a person could receive. */
export function onlyAgentTopics(levels: readonly string[]): boolean {
  const matched = TOPIC_LEVELS.filter(([, topic]) => filterMatches(levels, topic));
  return matched.length > 0 && matched.every(([name]) => !forPeople(name));
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
