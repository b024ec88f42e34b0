import { createRoute } from "@hono/zod-openapi";
import { guard } from "../../../http/guard.ts";
import { bearer, errorResponses } from "../../../http/openapi.ts";
import type { ServiceContext } from "../../../services/context.ts";
import { deleteProject } from "../../../services/field/projects/delete-project.ts";
import type { Router } from "../../router.ts";
import { deleted, idParams } from "../field-schema.ts";

const route = createRoute({
  method: "delete",
  path: "/projects/{id}",
  tags: ["Edge projects"],
  summary: "Delete a project and everything under it",
  description:
    "Removes the project's assets, devices, variables, telemetry, alert rules, alarms, operational records, " +
    "reports, deployments, agent logs and billing records. The audit log keeps the removed configuration. " +
    "Admin and superadmin (403 for other roles).",
  security: bearer,
  request: { params: idParams },
  responses: {
    204: deleted,
    ...errorResponses(400, 401, 403, 404),
  },
});

export function mountDeleteProject(router: Router, ctx: ServiceContext): void {
  router.openapi({ ...route, middleware: guard(ctx, "projects:manage") }, async (c) => {
    await deleteProject(ctx, c.get("auth"), c.req.valid("param").id);
    return c.body(null, 204);
  });
}
