import { eq } from "drizzle-orm";
import { projects } from "../../db/schema/index.ts";
import { notFound } from "../../http/errors.ts";
import { appendAudit } from "../audit/append-audit.ts";
import { type AuthContext, assertProjectVisible } from "../auth/auth-context.ts";
import { randomToken, sha256Hex } from "../auth/tokens.ts";
import type { ServiceContext } from "../context.ts";

/**
 * Issues a project's agent token, shown once. Only its SHA-256 is stored; issuing a new one
 * revokes the old one at once and disconnects any agent still using it.
 */
export function issueAgentToken(ctx: ServiceContext, auth: AuthContext, projectId: string): string {
  assertProjectVisible(auth, projectId);
  const token = `cat_${randomToken(32)}`;
  const now = ctx.clock.now();
  ctx.db.transaction((tx) => {
    const project = tx
      .select({ id: projects.id, hash: projects.agentTokenHash })
      .from(projects)
      .where(eq(projects.id, projectId))
      .get();
    if (!project) throw notFound("project");
    tx.update(projects)
      .set({ agentTokenHash: sha256Hex(token), updatedAt: now })
      .where(eq(projects.id, projectId))
      .run();
    appendAudit(tx, {
      at: now,
      userId: auth.userId,
      projectId,
      entity: "agent_token",
      entityId: projectId,
      action: project.hash ? "update" : "create",
      // The token itself is never recorded, not even hashed.
      before: project.hash ? { issued: true } : null,
      after: { issued: true },
    });
  });
  ctx.events.emit("agentTokenRotated", { projectId });
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
