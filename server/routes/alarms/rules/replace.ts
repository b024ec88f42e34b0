import { createRoute } from "@hono/zod-openapi";
import { guard } from "../../../http/guard.ts";
import { bearer, errorResponses, json, jsonBody } from "../../../http/openapi.ts";
import { replaceAlertRule } from "../../../services/alarms/replace-rule.ts";
import type { RuleChangeListener } from "../../../services/alarms/rule-listener.ts";
import type { ServiceContext } from "../../../services/context.ts";
import type { Router } from "../../router.ts";
import { alertRuleSchema, createAlertRuleRequest, ruleIdParams } from "./schema.ts";

const route = createRoute({
  method: "put",
  path: "/{id}",
  tags: ["Alerts and alarms"],
  summary: "Replace an alert rule",
  description:
    "Takes the create body and replaces every field (omitted optional ones reset to their defaults); " +
    "project_id must be the rule's own. Changing what the rule evaluates (variable, condition, threshold, " +
    "severity, deadband, delay) or disabling it returns its active alarms to normal; they stay listed " +
    "until acknowledged.",
  security: bearer,
  request: { params: ruleIdParams, ...jsonBody(createAlertRuleRequest) },
  responses: {
    200: json(alertRuleSchema, "Rule replaced"),
    ...errorResponses(400, 401, 403, 404),
  },
});

export function mountReplaceAlertRule(
  router: Router,
  ctx: ServiceContext,
  engine: RuleChangeListener | undefined,
): void {
  router.openapi({ ...route, middleware: guard(ctx, "config:write") }, async (c) =>
    c.json(
      await replaceAlertRule(ctx, engine, c.get("auth"), c.req.valid("param").id, c.req.valid("json")),
      200,
    ),
  );
}
