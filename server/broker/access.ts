import { parseTopic, TOPIC_ROOT, type TopicName } from "../../shared/mqtt/topics.ts";
import { canSeeProject } from "../services/auth/auth-context.ts";
import type { Principal } from "./principal.ts";

/** What an agent may publish under its own project. */
const AGENT_PUBLISHES: ReadonlySet<TopicName> = new Set([
  "telemetry",
  "heartbeat",
  "logs",
  "configStatus",
  "status",
]);

/**
 * Publish rights. Agents publish only the contract's agent topics of their own project;
 * users never publish. (The server's own publishes have no client and are not checked here.)
 */
export function mayPublish(p: Principal | undefined, topic: string): boolean {
  if (!p || p.kind === "user") return false;
  const parsed = parseTopic(topic);
  return parsed !== null && parsed.projectId === p.projectId && AGENT_PUBLISHES.has(parsed.name);
}

/**
 * Subscribe rights. `$SYS/` is refused to everyone. An agent subscribes under its own project;
 * a user only under projects they may see, and superadmin/admin also to `caudal/v1/#`.
 * A filter whose project level is a wildcard is refused unless the user sees every project.
 */
export function maySubscribe(p: Principal | undefined, filter: string): boolean {
  if (!p || filter.startsWith("$")) return false;
  const levels = filter.split("/");
  if (levels[0] !== "caudal" || levels[1] !== "v1") return false;
  const project = levels[2];
  if (project === undefined || project === "#" || project === "+") {
    return p.kind === "user" && (p.auth.role === "superadmin" || p.auth.role === "admin");
  }
  if (p.kind === "agent") return project === p.projectId;
  return canSeeProject(p.auth, project);
}

export { TOPIC_ROOT };
