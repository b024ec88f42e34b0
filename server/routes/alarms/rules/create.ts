import { createRoute } from "@hono/zod-openapi";
import { guard } from "../../../http/guard.ts";
import { bearer, errorResponses, json, jsonBody } from "../../../http/openapi.ts";
import { createAlertRule } from "../../../services/alarms/create-rule.ts";
import type { RuleChangeListener } from "../../../services/alarms/rule-listener.ts";
import type { ServiceContext } from "../../../services/context.ts";
import type { Router } from "../../router.ts";
import { alertRuleSchema, createAlertRuleRequest } from "./schema.ts";

const route = createRoute({
  method: "post",
  path: "/",
  tags: ["Alerts and alarms"],
  summary: "Create an alert rule",
  description:
    "The rule applies to every asset of the project that reports `variable_alias`, from the next reading " +
    "on. An alarm is raised when the condition becomes true (and has held `delay_seconds`), not on every " +
    "reading; it returns to normal once the value is beyond the threshold by more than `deadband`.",
  security: bearer,
  request: jsonBody(createAlertRuleRequest),
  responses: {
    201: json(alertRuleSchema, "Rule created"),
    ...errorResponses(400, 401, 403, 404),
  },
});

export function mountCreateAlertRule(
  router: Router,
  ctx: ServiceContext,
  engine: RuleChangeListener | undefined,
): void {
  router.openapi({ ...route, middleware: guard(ctx, "config:write") }, async (c) =>
    c.json(await createAlertRule(ctx, engine, c.get("auth"), c.req.valid("json")), 201),
  );
}
