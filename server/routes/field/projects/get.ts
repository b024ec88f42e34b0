import { createRoute } from "@hono/zod-openapi";
import { guard } from "../../../http/guard.ts";
import { bearer, errorResponses, json } from "../../../http/openapi.ts";
import type { ServiceContext } from "../../../services/context.ts";
import { getProject } from "../../../services/field/projects/get-project.ts";
import type { Router } from "../../router.ts";
import { idParams } from "../field-schema.ts";
import { projectWithConfigStatusSchema } from "./schema.ts";

const route = createRoute({
  method: "get",
  path: "/projects/{id}",
  tags: ["Edge projects"],
  summary: "Get a project",
  security: bearer,
  request: { params: idParams },
  responses: {
    200: json(projectWithConfigStatusSchema, "The project, with its configuration status"),
    ...errorResponses(400, 401, 403, 404),
  },
});

export function mountGetProject(router: Router, ctx: ServiceContext): void {
  router.openapi({ ...route, middleware: guard(ctx, "projects:read") }, async (c) =>
    c.json(await getProject(ctx, c.get("auth"), c.req.valid("param").id), 200),
  );
}
