import { createRoute } from "@hono/zod-openapi";
import { bearer, errorResponses, json } from "../../http/openapi.ts";
import type { ServiceContext } from "../../services/context.ts";
import { getUserDto } from "../../services/users/get-user.ts";
import { userSchema } from "../auth/schema.ts";
import type { Router } from "../router.ts";
import { userIdParams } from "./schema.ts";

const route = createRoute({
  method: "get",
  path: "/users/{id}",
  tags: ["Users"],
  summary: "Get a user",
  security: bearer,
  request: { params: userIdParams },
  responses: {
    200: json(userSchema, "User"),
    ...errorResponses(400, 401, 403, 404),
  },
});

export function mountGetUser(router: Router, ctx: ServiceContext): void {
  router.openapi(route, async (c) => c.json(await getUserDto(ctx, c.req.valid("param").id), 200));
}
