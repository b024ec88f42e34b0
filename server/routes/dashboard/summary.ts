import { createRoute } from "@hono/zod-openapi";
import { guard } from "../../http/guard.ts";
import { bearer, errorResponses, json } from "../../http/openapi.ts";
import type { ServiceContext } from "../../services/context.ts";
import { dashboardSummary } from "../../services/dashboard/dashboard-summary.ts";
import type { Router } from "../router.ts";
import { dashboardSummarySchema } from "./schema.ts";

const route = createRoute({
  method: "get",
  path: "/summary",
  tags: ["Dashboard"],
  summary: "Overview of the caller's projects",
  description:
    "Active assets, open alarms, the latest readings and the ANH 0651 compliance of yesterday's reports, " +
    "over the projects the caller can see. Every role may call it; recent_telemetry is empty for a role " +
    "without telemetry access (anh_reader).",
  security: bearer,
  responses: {
    200: json(dashboardSummarySchema, "Summary"),
    ...errorResponses(401),
  },
});

export function mountDashboardSummary(router: Router, ctx: ServiceContext): void {
  router.openapi({ ...route, middleware: guard(ctx, "dashboard:read") }, async (c) =>
    c.json(await dashboardSummary(ctx, c.get("auth")), 200),
  );
}
