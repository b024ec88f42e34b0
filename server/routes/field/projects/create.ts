import { createRoute } from "@hono/zod-openapi";
import { guard } from "../../../http/guard.ts";
import { bearer, errorResponses, json, jsonBody } from "../../../http/openapi.ts";
import type { ServiceContext } from "../../../services/context.ts";
import { createProject } from "../../../services/field/projects/create-project.ts";
import type { Router } from "../../router.ts";
import { createProjectRequest, projectSchema } from "./schema.ts";

const route = createRoute({
  method: "post",
  path: "/projects",
  tags: ["Edge projects"],
  summary: "Create a project",
  description: "Admin and superadmin (403 for other roles).",
  security: bearer,
  request: jsonBody(createProjectRequest),
  responses: {
    201: json(projectSchema, "Project created"),
    ...errorResponses(400, 401, 403, 409),
  },
});

export function mountCreateProject(router: Router, ctx: ServiceContext): void {
  router.openapi({ ...route, middleware: guard(ctx, "projects:manage") }, async (c) =>
    c.json(await createProject(ctx, c.get("auth"), c.req.valid("json")), 201),
  );
}
