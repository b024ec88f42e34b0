import { createRoute, z } from "@hono/zod-openapi";
import { guard } from "../../../http/guard.ts";
import { bearer, errorResponses, json } from "../../../http/openapi.ts";
import { listAlertRules } from "../../../services/alarms/list-rules.ts";
import type { ServiceContext } from "../../../services/context.ts";
import type { Router } from "../../router.ts";
import { alertRuleSchema, projectQuery } from "./schema.ts";

const route = createRoute({
  method: "get",
  path: "/",
  tags: ["Alerts and alarms"],
  summary: "List a project's alert rules",
  description: "Enabled and disabled rules, oldest first. 404 when the project is not one of the caller's.",
  security: bearer,
  request: { query: projectQuery },
  responses: {
    200: json(z.array(alertRuleSchema), "The project's alert rules"),
    ...errorResponses(400, 401, 403, 404),
  },
});

export function mountListAlertRules(router: Router, ctx: ServiceContext): void {
  router.openapi({ ...route, middleware: guard(ctx, "alarms:read") }, async (c) =>
    c.json(await listAlertRules(ctx, c.get("auth"), c.req.valid("query").project_id), 200),
  );
}
