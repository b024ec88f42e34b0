import { createRoute } from "@hono/zod-openapi";
import { errorResponses, json, jsonBody } from "../../http/openapi.ts";
import { startSession } from "../../services/auth/sessions.ts";
import { registerFirstUser, setupStatus } from "../../services/auth/setup.ts";
import type { ServiceContext } from "../../services/context.ts";
import { visibleProjectSummaries } from "../../services/users/user-dto.ts";
import { clientInfo } from "../client-info.ts";
import type { Router } from "../router.ts";
import { loginResponse, setupRegisterRequest, setupStatusResponse } from "./schema.ts";
import { loginBody, setRefreshCookie } from "./session-response.ts";

const statusRoute = createRoute({
  method: "get",
  path: "/setup/status",
  tags: ["Auth"],
  summary: "Whether the first account still has to be created",
  responses: { 200: json(setupStatusResponse, "Setup status") },
});

const registerRoute = createRoute({
  method: "post",
  path: "/setup/register",
  tags: ["Auth"],
  summary: "Create the first account (always superadmin)",
  request: jsonBody(setupRegisterRequest),
  responses: {
    201: json(loginResponse, "First account created and logged in"),
    ...errorResponses(400, 409),
  },
});

export function mountSetup(router: Router, ctx: ServiceContext): void {
  router.openapi(statusRoute, async (c) => c.json(await setupStatus(ctx), 200));
  router.openapi(registerRoute, async (c) => {
    const { email, name, password } = c.req.valid("json");
    const user = await registerFirstUser(ctx, { email, name, password });
    const tokens = await startSession(ctx, user, clientInfo(c));
    setRefreshCookie(c, ctx.config, tokens.refreshToken);
    return c.json(
      loginBody(tokens.accessToken, user.role, await visibleProjectSummaries(ctx.store, user)),
      201,
    );
  });
}
