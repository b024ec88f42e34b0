import { createRoute } from "@hono/zod-openapi";
import { guard } from "../../../http/guard.ts";
import { bearer, errorResponses, json } from "../../../http/openapi.ts";
import type { RuleChangeListener } from "../../../services/alarms/rule-listener.ts";
import { toggleAlertRule } from "../../../services/alarms/toggle-rule.ts";
import type { ServiceContext } from "../../../services/context.ts";
import type { Router } from "../../router.ts";
import { alertRuleSchema, ruleIdParams } from "./schema.ts";

const route = createRoute({
  method: "patch",
  path: "/{id}/toggle",
  tags: ["Alerts and alarms"],
  summary: "Enable or disable an alert rule",
  description:
    "Flips is_enabled (spec §3). A disabled rule raises nothing, and disabling returns its active " +
    "alarms to normal; enabling evaluates from the next reading on.",
  security: bearer,
  request: { params: ruleIdParams },
  responses: {
    200: json(alertRuleSchema, "The rule with is_enabled flipped"),
    ...errorResponses(400, 401, 403, 404),
  },
});

export function mountToggleAlertRule(
  router: Router,
  ctx: ServiceContext,
  engine: RuleChangeListener | undefined,
): void {
  router.openapi({ ...route, middleware: guard(ctx, "config:write") }, async (c) =>
    c.json(await toggleAlertRule(ctx, engine, c.get("auth"), c.req.valid("param").id), 200),
  );
}
