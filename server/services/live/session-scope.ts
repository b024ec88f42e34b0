import { eq } from "drizzle-orm";
import { type Role, seesAllProjects } from "../../../shared/roles.ts";
import { sessions, users } from "../../store/sqlite/schema/index.ts";
import { projectIdsOf } from "../auth/sessions.ts";
import type { ServiceContext } from "../context.ts";

/** What a live session may see now: its user's current role and project assignment. */
export type SessionScope = { role: Role; projectIds: ReadonlySet<string> };

/**
 * Re-reads a session's scope for long-lived connections (the WebSocket stream): null once the
 * session is revoked or its user disabled, otherwise the role and assignment as they are now, so
 * a changed role or a removed project applies to a stream that is already open.
 */
export function liveSessionScope(ctx: ServiceContext, sessionId: string): SessionScope | null {
  const row = ctx.db
    .select({ userId: users.id, revokedAt: sessions.revokedAt, role: users.role, isActive: users.isActive })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(eq(sessions.id, sessionId))
    .get();
  if (!row || row.revokedAt || !row.isActive) return null;
  return {
    role: row.role,
    projectIds: seesAllProjects(row.role) ? new Set<string>() : projectIdsOf(ctx, row.userId),
  };
}
