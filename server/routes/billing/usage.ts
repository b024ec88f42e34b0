import { createRoute } from "@hono/zod-openapi";
import { guard } from "../../http/guard.ts";
import { bearer, errorResponses, json } from "../../http/openapi.ts";
import { getUsage } from "../../services/billing/get-usage.ts";
import type { ServiceContext } from "../../services/context.ts";
import type { Router } from "../router.ts";
import { BILLING_TAG, projectQuery, usageSchema } from "./schema.ts";

const route = createRoute({
  method: "get",
  path: "/usage",
  tags: [BILLING_TAG],
  summary: "A project's usage this month",
  description:
    "Telemetry points (counted at ingest) and active devices in the current calendar month (UTC), " +
    "with the cost estimated from the project's plan: its monthly price plus overage beyond the points " +
    "and devices it includes.",
  security: bearer,
  request: { query: projectQuery },
  responses: {
    200: json(usageSchema, "Usage"),
    ...errorResponses(400, 401, 403, 404),
  },
});

export function mountUsage(router: Router, ctx: ServiceContext): void {
  router.openapi({ ...route, middleware: guard(ctx, "billing:read") }, async (c) =>
    c.json(await getUsage(ctx, c.get("auth"), c.req.valid("query").project_id), 200),
  );
}
