import type { AuthContext } from "../services/auth/auth-context.ts";
import type { ServiceContext } from "../services/context.ts";
import { liveSessionScope } from "../services/live/session-scope.ts";
import { tokenExpired } from "./access.ts";

/**
 * A person's access as it is now, for a connection that authenticated earlier: null once the access
 * token has expired, the session was revoked or the user deactivated; otherwise the connection's
 * auth with the user's current role and project assignment (the same read the WebSocket stream
 * re-checks with).
 */
export async function currentUserAuth(ctx: ServiceContext, auth: AuthContext): Promise<AuthContext | null> {
  if (tokenExpired(auth, ctx.clock.now().getTime())) return null;
  const scope = await liveSessionScope(ctx, auth.sessionId);
  if (!scope) return null;
  return { ...auth, role: scope.role, projectIds: scope.projectIds };
}
