import { createRoute } from "@hono/zod-openapi";
import { bearer, errorResponses, json, jsonBody } from "../../http/openapi.ts";
import type { ServiceContext } from "../../services/context.ts";
import { setUserProjects } from "../../services/users/set-user-projects.ts";
import { userSchema } from "../auth/schema.ts";
import type { Router } from "../router.ts";
import { setUserProjectsRequest, userIdParams } from "./schema.ts";

const route = createRoute({
  method: "put",
  path: "/users/{id}/projects",
  tags: ["Users"],
  summary: "Replace the projects assigned to a user",
  description:
    "The list is the complete new set. 404 when the user or any of the projects does not exist; " +
    "nothing changes then. Superadmin and admin see every project whatever is assigned.",
  security: bearer,
  request: { params: userIdParams, ...jsonBody(setUserProjectsRequest) },
  responses: {
    200: json(userSchema, "User with the new assignment"),
    ...errorResponses(400, 401, 403, 404),
  },
});

export function mountSetUserProjects(router: Router, ctx: ServiceContext): void {
  router.openapi(route, async (c) => {
    const user = await setUserProjects(
      ctx,
      c.get("auth"),
      c.req.valid("param").id,
      c.req.valid("json").project_ids,
    );
    return c.json(user, 200);
  });
}
