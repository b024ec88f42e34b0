import { createRoute } from "@hono/zod-openapi";
import { requireAuth } from "../../http/auth.ts";
import { bearer, errorResponses, json } from "../../http/openapi.ts";
import { revokeSession } from "../../services/auth/sessions.ts";
import type { ServiceContext } from "../../services/context.ts";
import type { Router } from "../router.ts";
import { messageResponse } from "./schema.ts";
import { clearRefreshCookie } from "./session-response.ts";

const route = createRoute({
  method: "post",
  path: "/logout",
  tags: ["Auth"],
  summary: "End the session",
  description: "Revokes the session: its access token and refresh token stop working at once.",
  security: bearer,
  responses: {
    200: json(messageResponse, "Logged out"),
    ...errorResponses(401),
  },
});

export function mountLogout(router: Router, ctx: ServiceContext): void {
  router.use(route.path, requireAuth(ctx));
  router.openapi(route, async (c) => {
    await revokeSession(ctx, c.get("auth").sessionId, "logout");
    clearRefreshCookie(c, ctx.config);
    return c.json({ message: "logged out" }, 200);
  });
}
