import { createRoute } from "@hono/zod-openapi";
import { bearer, errorResponses, json } from "../../http/openapi.ts";
import type { ServiceContext } from "../../services/context.ts";
import { listUsers } from "../../services/users/list-users.ts";
import type { Router } from "../router.ts";
import { userListResponse } from "./schema.ts";

const route = createRoute({
  method: "get",
  path: "/users",
  tags: ["Users"],
  summary: "List users",
  description: "Every user, ordered by email. Requires superadmin or admin.",
  security: bearer,
  responses: {
    200: json(userListResponse, "Users"),
    ...errorResponses(401, 403),
  },
});

export function mountListUsers(router: Router, ctx: ServiceContext): void {
  router.openapi(route, async (c) => c.json(await listUsers(ctx), 200));
}
