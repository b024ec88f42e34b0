import { createRoute, z } from "@hono/zod-openapi";
import { guard } from "../../../http/guard.ts";
import { bearer, errorResponses, json } from "../../../http/openapi.ts";
import type { ServiceContext } from "../../../services/context.ts";
import { listProjects } from "../../../services/field/projects/list-projects.ts";
import type { Router } from "../../router.ts";
import { projectSchema } from "./schema.ts";

const route = createRoute({
  method: "get",
  path: "/projects",
  tags: ["Edge projects"],
  summary: "List the caller's projects",
  description: "Superadmin and admin see every project; other roles see the projects assigned to them.",
  security: bearer,
  responses: {
    200: json(z.array(projectSchema), "Projects, by name"),
    ...errorResponses(401, 403),
  },
});

export function mountListProjects(router: Router, ctx: ServiceContext): void {
  router.openapi({ ...route, middleware: guard(ctx, "projects:read") }, async (c) =>
    c.json(await listProjects(ctx, c.get("auth")), 200),
  );
}
