import { createRoute } from "@hono/zod-openapi";
import { json } from "../../http/openapi.ts";
import type { ServiceContext } from "../../services/context.ts";
import { checkHealth, type HealthProbes } from "../../services/system/health.ts";
import type { Router } from "../router.ts";
import { healthResponse } from "./schema.ts";

const route = createRoute({
  method: "get",
  path: "/health",
  tags: ["System"],
  summary: "Health check",
  description:
    "Probes the database on every call. 503 when the database cannot answer; `degraded` (200) when " +
    "it answers slower than 250 ms or the MQTT broker is down.",
  responses: {
    200: json(healthResponse, "Healthy or degraded"),
    503: json(healthResponse, "The database cannot answer"),
  },
});

export function mountHealth(router: Router, ctx: ServiceContext, probes: HealthProbes): void {
  router.openapi(route, async (c) => {
    const report = await checkHealth(ctx, probes);
    // Probes and load balancers must see the live answer, never a cached one.
    c.header("Cache-Control", "no-store");
    return report.status === "error" ? c.json(report, 503) : c.json(report, 200);
  });
}
