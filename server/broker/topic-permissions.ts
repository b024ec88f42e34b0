import type { TopicName } from "../../shared/mqtt/topics.ts";
import type { Permission } from "../../shared/roles.ts";

/**
 * The permission a person needs to receive each contract topic: the one REST asks for the same
 * data. Live values, batches and their acks are telemetry (GET /api/telemetry); the configuration
 * and its outcome are config (GET …/deployments); heartbeats, logs and online/offline are the
 * agent's health and log (GET /api/edge/agents/{id}/health, …/logs: config:read).
 */
export const TOPIC_PERMISSION: Readonly<Record<TopicName, Permission>> = {
  live: "telemetry:read",
  telemetry: "telemetry:read",
  ack: "telemetry:read",
  heartbeat: "config:read",
  logs: "config:read",
  status: "config:read",
  config: "config:read",
  configStatus: "config:read",
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
  ["live", ["live", "*", "*"]],
];

/**
 * The permissions a subscription filter needs, given its levels after the project level: one per
 * contract topic the filter can match (MQTT 3.1.1 §4.7: `+` is one level, a trailing `#` is any
 * number of levels, including none [MQTT-4.7.1-2]).
 */
export function permissionsForFilter(levels: readonly string[]): Set<Permission> {
  const needed = new Set<Permission>();
  for (const [name, topic] of TOPIC_LEVELS) {
    if (filterMatches(levels, topic)) needed.add(TOPIC_PERMISSION[name]);
  }
  return needed;
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
