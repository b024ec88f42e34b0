import { createRoute } from "@hono/zod-openapi";
import { bearer, errorResponses, json, jsonBody } from "../../http/openapi.ts";
import type { ServiceContext } from "../../services/context.ts";
import { updateUser } from "../../services/users/update-user.ts";
import { userSchema } from "../auth/schema.ts";
import type { Router } from "../router.ts";
import { updateUserRequest, userIdParams } from "./schema.ts";

const route = createRoute({
  method: "put",
  path: "/users/{id}",
  tags: ["Users"],
  summary: "Replace a user's email, name, role and password",
  description:
    "Optional is_active (de)activates the account. A changed password or a deactivation ends every " +
    "session of the user. Only a superadmin may modify a superadmin or grant that role. 409 when the " +
    "email is taken, when it would leave no active superadmin, or when deactivating your own account.",
  security: bearer,
  request: { params: userIdParams, ...jsonBody(updateUserRequest) },
  responses: {
    200: json(userSchema, "User updated"),
    ...errorResponses(400, 401, 403, 404, 409),
  },
});

export function mountUpdateUser(router: Router, ctx: ServiceContext): void {
  router.openapi(route, async (c) => {
    const user = await updateUser(ctx, c.get("auth"), c.req.valid("param").id, c.req.valid("json"));
    return c.json(user, 200);
  });
}
