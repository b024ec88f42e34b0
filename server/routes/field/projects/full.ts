import { createRoute } from "@hono/zod-openapi";
import { guard } from "../../../http/guard.ts";
import { bearer, errorResponses, json } from "../../../http/openapi.ts";
import type { ServiceContext } from "../../../services/context.ts";
import { getProjectTree } from "../../../services/field/projects/get-project.ts";
import type { Router } from "../../router.ts";
import { idParams } from "../field-schema.ts";
import { projectTreeSchema } from "./schema.ts";

const route = createRoute({
  method: "get",
  path: "/projects/{id}/full",
  tags: ["Edge projects"],
  summary: "Get a project with its assets, devices and variables",
  description:
    "The whole field configuration of one project: assets, each with devices, each with variables.",
  security: bearer,
  request: { params: idParams },
  responses: {
    200: json(projectTreeSchema, "The project tree"),
    ...errorResponses(400, 401, 403, 404),
  },
});

export function mountGetProjectFull(router: Router, ctx: ServiceContext): void {
  // The tree is device configuration, so it also needs config:read (anh_reader lacks it).
  router.openapi({ ...route, middleware: guard(ctx, "projects:read", "config:read") }, async (c) =>
    c.json(await getProjectTree(ctx, c.get("auth"), c.req.valid("param").id), 200),
  );
}
