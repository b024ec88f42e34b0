import { createRoute } from "@hono/zod-openapi";
import { guard } from "../../../http/guard.ts";
import { bearer, errorResponses } from "../../../http/openapi.ts";
import { deleteAlertRule } from "../../../services/alarms/delete-rule.ts";
import type { RuleChangeListener } from "../../../services/alarms/rule-listener.ts";
import type { ServiceContext } from "../../../services/context.ts";
import type { Router } from "../../router.ts";
import { ruleIdParams } from "./schema.ts";

const route = createRoute({
  method: "delete",
  path: "/{id}",
  tags: ["Alerts and alarms"],
  summary: "Delete an alert rule",
  description:
    "Its active alarms return to normal; every alarm it raised keeps its history (rule_id becomes null).",
  security: bearer,
  request: { params: ruleIdParams },
  responses: {
    204: { description: "Deleted" },
    ...errorResponses(400, 401, 403, 404),
  },
});

export function mountDeleteAlertRule(
  router: Router,
  ctx: ServiceContext,
  engine: RuleChangeListener | undefined,
): void {
  router.openapi({ ...route, middleware: guard(ctx, "config:write") }, async (c) => {
    await deleteAlertRule(ctx, engine, c.get("auth"), c.req.valid("param").id);
    return c.body(null, 204);
  });
}
