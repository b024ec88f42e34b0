import { createRoute } from "@hono/zod-openapi";
import { guard } from "../../http/guard.ts";
import { bearer, errorResponses, json } from "../../http/openapi.ts";
import type { ServiceContext } from "../../services/context.ts";
import { dashboardOverview } from "../../services/dashboard/overview.ts";
import type { Router } from "../router.ts";
import { dashboardOverviewSchema, overviewQuery } from "./overview-schema.ts";

const route = createRoute({
  method: "get",
  path: "/overview",
  tags: ["Dashboard"],
  summary: "The field at a glance, for running a shift",
  description:
    "In one answer, per project (one, or every active project the caller sees): each asset with its key " +
    "variables' newest values and sparklines from the 5-minute rollups, today's production so far against " +
    "yesterday's at the same hour and today's completeness so far (both by the ANH report's own code), the " +
    "alarms GET /alarms lists (most severe, then newest first) and the agent's state. Live changes arrive on " +
    "GET /ws/telemetry.",
  security: bearer,
  request: { query: overviewQuery },
  responses: {
    200: json(dashboardOverviewSchema, "Overview"),
    ...errorResponses(400, 401, 403, 404),
  },
});

export function mountDashboardOverview(router: Router, ctx: ServiceContext): void {
  router.openapi({ ...route, middleware: guard(ctx, "telemetry:read") }, async (c) =>
    c.json(await dashboardOverview(ctx, c.get("auth"), c.req.valid("query")), 200),
  );
}
