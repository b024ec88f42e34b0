import { createRoute } from "@hono/zod-openapi";
import { getCookie } from "hono/cookie";
import { AppError } from "../../errors.ts";
import { errorResponses, json } from "../../http/openapi.ts";
import { rotateRefreshToken } from "../../services/auth/sessions.ts";
import { REFRESH_COOKIE } from "../../services/auth/tokens.ts";
import type { ServiceContext } from "../../services/context.ts";
import { getUserWithProjects } from "../../services/users/get-user.ts";
import type { Router } from "../router.ts";
import { loginResponse } from "./schema.ts";
import { clearRefreshCookie, loginBody, setRefreshCookie } from "./session-response.ts";

const route = createRoute({
  method: "post",
  path: "/refresh",
  tags: ["Auth"],
  summary: "Rotate the refresh cookie and get a new access token",
  description:
    "Each refresh token works once. Presented again within 5 s of its rotation (two tabs refreshing at " +
    "once) it returns the same successor and access token; presented later, it revokes the whole session.",
  responses: {
    200: json(loginResponse, "New tokens"),
    ...errorResponses(401),
  },
});

export function mountRefresh(router: Router, ctx: ServiceContext): void {
  router.openapi(route, async (c) => {
    const presented = getCookie(c, REFRESH_COOKIE);
    if (!presented) throw new AppError("Unauthorized", "no refresh cookie");
    try {
      const issued = await rotateRefreshToken(ctx, presented);
      const { user, projects } = await getUserWithProjects(ctx, issued.userId);
      setRefreshCookie(c, ctx.config, issued.refreshToken);
      return c.json(loginBody(issued.accessToken, user.role, projects), 200);
    } catch (err) {
      clearRefreshCookie(c, ctx.config);
      throw err;
    }
  });
}
