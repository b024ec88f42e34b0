import type { ServiceContext } from "../../../services/context.ts";
import { newRouter, type Router } from "../../router.ts";
import { mountCreateAlertRule } from "./create.ts";
import { mountDeleteAlertRule } from "./delete.ts";
import { mountListAlertRules } from "./list.ts";
import { mountReplaceAlertRule } from "./replace.ts";
import { mountToggleAlertRule } from "./toggle.ts";

/** /api/alert-rules (spec §4, "Alerts and alarms"). Reads need alarms:read, writes config:write. */
export function alertRuleRoutes(ctx: ServiceContext): Router {
  const router = newRouter();
  mountListAlertRules(router, ctx);
  mountCreateAlertRule(router, ctx);
  mountReplaceAlertRule(router, ctx);
  mountDeleteAlertRule(router, ctx);
  mountToggleAlertRule(router, ctx);
  return router;
}
