import { notFound } from "../../errors.ts";
import type { StorePorts } from "../../store/store.ts";
import { type AuthContext, assertProjectVisible } from "../auth/auth-context.ts";
import { randomToken, sha256Hex } from "../auth/tokens.ts";
import type { ServiceContext } from "../context.ts";

/** The MQTT username of a project's agent. */
export const agentMqttUsername = (projectId: string) => `agent:${projectId}`;

/**
 * Issues a project's agent token, shown once. Only its SHA-256 is stored; issuing a new one
 * revokes the old one at once and disconnects any agent still using it.
 */
export async function issueAgentToken(
  ctx: ServiceContext,
  auth: AuthContext,
  projectId: string,
): Promise<string> {
  assertProjectVisible(auth, projectId);
  const now = ctx.clock.now();
  const token = await ctx.store.transaction((tx) => replaceAgentToken(tx, projectId, auth.userId, now));
  ctx.events.emit("agentTokenRotated", { projectId });
  return token;
}

/**
 * Stores a new agent token for the project and audits it, with the ports of the caller's
 * transaction (404 for an unknown project). The caller emits `agentTokenRotated` once the
 * transaction has committed.
 */
export async function replaceAgentToken(
  tx: StorePorts,
  projectId: string,
  userId: string | null,
  now: Date,
): Promise<string> {
  const hash = await tx.agents.tokenHash(projectId);
  if (hash === undefined) throw notFound("project");
  const token = `cat_${randomToken(32)}`;
  await tx.agents.setTokenHash(projectId, sha256Hex(token), now);
  await tx.audit.append({
    at: now,
    userId,
    projectId,
    entity: "agent_token",
    entityId: projectId,
    action: hash ? "update" : "create",
    // The token itself is never recorded, not even hashed.
    before: hash ? { issued: true } : null,
    after: { issued: true },
  });
  return token;
}

/** True when `token` is the project's current agent token. */
export async function agentTokenValid(
  ctx: ServiceContext,
  projectId: string,
  token: string,
): Promise<boolean> {
  const hash = await ctx.store.agents.tokenHash(projectId);
  return Boolean(hash && hash === sha256Hex(token));
}
