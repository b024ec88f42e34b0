import type { ServiceContext } from "../../services/context.ts";
import { newRouter, type Router } from "../router.ts";
import { mountDashboardOverview } from "./overview.ts";
import { mountDashboardSummary } from "./summary.ts";

/** /api/dashboard */
export function dashboardRoutes(ctx: ServiceContext): Router {
  const router = newRouter();
  mountDashboardSummary(router, ctx);
  mountDashboardOverview(router, ctx);
  return router;
}
