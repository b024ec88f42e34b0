import { createRoute } from "@hono/zod-openapi";
import { guard } from "../../../http/guard.ts";
import { bearer, errorResponses, json, jsonBody } from "../../../http/openapi.ts";
import type { ServiceContext } from "../../../services/context.ts";
import { replaceProject } from "../../../services/field/projects/update-project.ts";
import type { Router } from "../../router.ts";
import { idParams } from "../field-schema.ts";
import { createProjectRequest, projectSchema } from "./schema.ts";

const route = createRoute({
  method: "put",
  path: "/projects/{id}",
  tags: ["Edge projects"],
  summary: "Replace a project",
  description: "Takes the create body and replaces: omitted optional fields reset to their defaults.",
  security: bearer,
  request: { params: idParams, ...jsonBody(createProjectRequest) },
  responses: {
    200: json(projectSchema, "Project replaced"),
    ...errorResponses(400, 401, 403, 404, 409),
  },
});

export function mountReplaceProject(router: Router, ctx: ServiceContext): void {
  router.openapi({ ...route, middleware: guard(ctx, "projects:write") }, async (c) =>
    c.json(await replaceProject(ctx, c.get("auth"), c.req.valid("param").id, c.req.valid("json")), 200),
  );
}
