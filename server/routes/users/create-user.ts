import { createRoute } from "@hono/zod-openapi";
import { bearer, errorResponses, json, jsonBody } from "../../http/openapi.ts";
import type { ServiceContext } from "../../services/context.ts";
import { createUser } from "../../services/users/create-user.ts";
import { toUserDto } from "../../services/users/user-dto.ts";
import { createUserRequest, userSchema } from "../auth/schema.ts";
import type { Router } from "../router.ts";

const route = createRoute({
  method: "post",
  path: "/users",
  tags: ["Users"],
  summary: "Create a user",
  description:
    "Requires superadmin or admin; only a superadmin may create a superadmin. The new user has no projects " +
    "until PUT /admin/users/{id}/projects assigns some. 409 when the email is taken.",
  security: bearer,
  request: jsonBody(createUserRequest),
  responses: {
    201: json(userSchema, "User created"),
    ...errorResponses(400, 401, 403, 409),
  },
});

export function mountCreateUser(router: Router, ctx: ServiceContext): void {
  router.openapi(route, async (c) => {
    const user = await createUser(ctx, c.req.valid("json"), { actor: c.get("auth") });
    return c.json(toUserDto(user, []), 201);
  });
}
