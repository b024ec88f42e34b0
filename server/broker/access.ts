import { parseTopic, TOPIC_ROOT } from "../../shared/mqtt/topics.ts";
import { roleCan } from "../../shared/roles.ts";
import { type AuthContext, canSeeProject } from "../services/auth/auth-context.ts";
import type { AgentTopic } from "./messages.ts";
import type { Principal } from "./principal.ts";
import { matchesReadableTopic, TOPIC_PERMISSION } from "./topic-permissions.ts";

/** What an agent may publish under its own project. */
const AGENT_PUBLISHES: readonly AgentTopic[] = [
  "telemetry",
  "heartbeat",
  "logs",
  "configStatus",
  "status",
  "response",
];

/** The only agent topic the contract retains (docs/mqtt.md): online/offline and the last will. */
const RETAINED_BY_AGENTS: ReadonlySet<AgentTopic> = new Set(["status"]);

/**
 * Publish rights: the contract topic an agent may publish `topic` as, or null. Agents publish only
 * the contract's agent topics of their own project; users never publish. (The server's own
 * publishes have no client and are not checked here.)
 */
export function publishableAs(p: Principal | undefined, topic: string): AgentTopic | null {
  if (p?.kind !== "agent") return null;
  const parsed = parseTopic(topic);
  if (parsed === null || parsed.projectId !== p.projectId) return null;
  return AGENT_PUBLISHES.find((name) => name === parsed.name) ?? null;
}

/** Whether an agent's publish on `name` may carry the retain flag. */
export function mayRetain(name: AgentTopic): boolean {
  return RETAINED_BY_AGENTS.has(name);
}

/**
 * Subscribe rights. `$SYS/` is refused to everyone. An agent subscribes under its own project.
 * A person's filter is granted, wildcards included (`#`, `caudal/v1/#`, `caudal/v1/+/live/#`),
 * when it can match a topic they may read: a contract topic their role holds the permission of
 * (topic-permissions.ts, as REST asks for the same data), in a project they see when the filter
 * names one. What it delivers is then filtered per message (mayReceive), as Mosquitto's ACLs do.
 * HMI credentials have their own rules (hmi/hmi-access.ts) and nothing here.
 */
export function maySubscribe(p: Principal | undefined, filter: string): boolean {
  if (!p || p.kind === "hmi" || filter.startsWith("$")) return false;
  const levels = filter.split("/");
  const project = levels[2];
  if (p.kind === "agent") return levels[0] === "caudal" && levels[1] === "v1" && project === p.projectId;
  if (project !== undefined && project !== "+" && project !== "#" && !canSeeProject(p.auth, project))
    return false;
  return matchesReadableTopic(levels, (perm) => roleCan(p.auth.role, perm));
}

/**
 * Whether a person may receive one message now (checked at delivery, so a queued or retained
 * message follows the user's current access too). Agents get what their subscriptions match.
 */
export function mayReceive(p: Principal | undefined, topic: string, nowMs: number): boolean {
  if (!p || p.kind === "hmi") return false;
  if (p.kind === "agent") return true;
  if (tokenExpired(p.auth, nowMs)) return false;
  const parsed = parseTopic(topic);
  if (!parsed) return false;
  const permission = TOPIC_PERMISSION[parsed.name];
  if (permission === "agent-only") return false;
  return canSeeProject(p.auth, parsed.projectId) && roleCan(p.auth.role, permission);
}

/** The access token's `exp` (RFC 7519 §4.1.4) has passed. */
export function tokenExpired(auth: AuthContext, nowMs: number): boolean {
  return auth.expiresAt * 1000 <= nowMs;
}

export { TOPIC_ROOT };
