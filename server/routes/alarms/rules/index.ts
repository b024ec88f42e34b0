import type { RuleChangeListener } from "../../../services/alarms/rule-listener.ts";
import type { ServiceContext } from "../../../services/context.ts";
import { newRouter, type Router } from "../../router.ts";
import { mountCreateAlertRule } from "./create.ts";
import { mountDeleteAlertRule } from "./delete.ts";
import { mountListAlertRules } from "./list.ts";
import { mountReplaceAlertRule } from "./replace.ts";
import { mountToggleAlertRule } from "./toggle.ts";

/**
 * /api/alert-rules (spec §4, "Alerts and alarms"). Reads need alarms:read, writes config:write.
 * `engine`: the running alarm engine, told of every rule change (undefined: none runs).
 */
export function alertRuleRoutes(ctx: ServiceContext, engine: RuleChangeListener | undefined): Router {
  const router = newRouter();
  mountListAlertRules(router, ctx);
  mountCreateAlertRule(router, ctx, engine);
  mountReplaceAlertRule(router, ctx, engine);
  mountDeleteAlertRule(router, ctx, engine);
  mountToggleAlertRule(router, ctx, engine);
  return router;
}
