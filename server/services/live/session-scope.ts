import { type Role, seesAllProjects } from "../../../shared/roles.ts";
import { projectIdsOf } from "../auth/sessions.ts";
import type { ServiceContext } from "../context.ts";

/** What a live session may see now: its user's current role and project assignment. */
export type SessionScope = { role: Role; projectIds: ReadonlySet<string> };

/**
 * Re-reads a session's scope for long-lived connections (the WebSocket stream): null once the
 * session is revoked or its user disabled, otherwise the role and assignment as they are now, so
 * a changed role or a removed project applies to a stream that is already open.
 */
export async function liveSessionScope(ctx: ServiceContext, sessionId: string): Promise<SessionScope | null> {
  const row = await ctx.store.identity.sessionState(sessionId);
  if (!row || row.revokedAt || !row.isActive) return null;
  return {
    role: row.role,
    projectIds: seesAllProjects(row.role) ? new Set<string>() : await projectIdsOf(ctx, row.userId),
  };
}
