import { createRoute } from "@hono/zod-openapi";
import { bearer, errorResponses, json, jsonBody } from "../../http/openapi.ts";
import type { ServiceContext } from "../../services/context.ts";
import { resetPassword } from "../../services/users/reset-password.ts";
import { messageResponse } from "../auth/schema.ts";
import type { Router } from "../router.ts";
import { resetPasswordRequest, userIdParams } from "./schema.ts";

const route = createRoute({
  method: "post",
  path: "/users/{id}/reset-password",
  tags: ["Users"],
  summary: "Set a new password for a user",
  description: "Ends every session of the user. Only a superadmin may reset a superadmin's password.",
  security: bearer,
  request: { params: userIdParams, ...jsonBody(resetPasswordRequest) },
  responses: {
    200: json(messageResponse, "Password reset"),
    ...errorResponses(400, 401, 403, 404),
  },
});

export function mountResetPassword(router: Router, ctx: ServiceContext): void {
  router.openapi(route, async (c) => {
    await resetPassword(ctx, c.get("auth"), c.req.valid("param").id, c.req.valid("json").new_password);
    return c.json({ message: "password reset; the user's sessions have ended" }, 200);
  });
}
