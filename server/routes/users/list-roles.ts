import { createRoute } from "@hono/zod-openapi";
import { ROLES } from "../../../shared/roles.ts";
import { bearer, errorResponses, json } from "../../http/openapi.ts";
import type { Router } from "../router.ts";
import { roleListResponse } from "./schema.ts";

const route = createRoute({
  method: "get",
  path: "/roles",
  tags: ["Users"],
  summary: "List the roles",
  description: "The roles a user may hold, from most to least privileged.",
  security: bearer,
  responses: {
    200: json(roleListResponse, "Roles"),
    ...errorResponses(401, 403),
  },
});

export function mountListRoles(router: Router): void {
  router.openapi(route, (c) => c.json([...ROLES], 200));
}
