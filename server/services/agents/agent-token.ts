import { eq } from "drizzle-orm";
import { notFound } from "../../errors.ts";
import { appendAudit, type DbOrTx } from "../../store/sqlite/append-audit.ts";
import { projects } from "../../store/sqlite/schema/index.ts";
import { type AuthContext, assertProjectVisible } from "../auth/auth-context.ts";
import { randomToken, sha256Hex } from "../auth/tokens.ts";
import type { ServiceContext } from "../context.ts";

/** The MQTT username of a project's agent. */
export const agentMqttUsername = (projectId: string) => `agent:${projectId}`;

/**
 * Issues a project's agent token, shown once. Only its SHA-256 is stored; issuing a new one
 * revokes the old one at once and disconnects any agent still using it.
 */
export function issueAgentToken(ctx: ServiceContext, auth: AuthContext, projectId: string): string {
  assertProjectVisible(auth, projectId);
  const now = ctx.clock.now();
  const token = ctx.db.transaction((tx) => replaceAgentToken(tx, projectId, auth.userId, now));
  ctx.events.emit("agentTokenRotated", { projectId });
  return token;
}

/**
 * Stores a new agent token for the project and audits it, inside the caller's transaction (404 for
 * an unknown project). The caller emits `agentTokenRotated` once the transaction has committed.
 */
export function replaceAgentToken(tx: DbOrTx, projectId: string, userId: string | null, now: Date): string {
  const project = tx
    .select({ id: projects.id, hash: projects.agentTokenHash })
    .from(projects)
    .where(eq(projects.id, projectId))
    .get();
  if (!project) throw notFound("project");
  const token = `cat_${randomToken(32)}`;
  tx.update(projects)
    .set({ agentTokenHash: sha256Hex(token), updatedAt: now })
    .where(eq(projects.id, projectId))
    .run();
  appendAudit(tx, {
    at: now,
    userId,
    projectId,
    entity: "agent_token",
    entityId: projectId,
    action: project.hash ? "update" : "create",
    // The token itself is never recorded, not even hashed.
    before: project.hash ? { issued: true } : null,
    after: { issued: true },
  });
  return token;
}

/** True when `token` is the project's current agent token. */
export function agentTokenValid(ctx: ServiceContext, projectId: string, token: string): boolean {
  const row = ctx.db
    .select({ hash: projects.agentTokenHash })
    .from(projects)
    .where(eq(projects.id, projectId))
    .get();
  return Boolean(row?.hash && row.hash === sha256Hex(token));
}
