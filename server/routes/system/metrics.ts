import { createRoute, z } from "@hono/zod-openapi";
import type { Registry } from "prom-client";
import { metricsText } from "../../http/metrics.ts";
import type { Router } from "../router.ts";

const route = createRoute({
  method: "get",
  path: "/metrics",
  tags: ["System"],
  summary: "Prometheus metrics",
  description:
    "Prometheus text exposition format 0.0.4, for internal scrapers: process metrics, " +
    "`http_requests_total` and `http_request_duration_seconds` by method, route pattern and status.",
  responses: {
    200: {
      description: "Metrics in Prometheus text format",
      content: { "text/plain": { schema: z.string().openapi({ example: "http_requests_total 1" }) } },
    },
  },
});

export function mountMetrics(
  router: Router,
  registry: Registry,
  workerMetrics: () => Promise<unknown[][]>,
): void {
  router.openapi(route, async (c) => {
    const text = await metricsText(registry, await workerMetrics());
    return c.text(text, 200, { "Content-Type": registry.contentType, "Cache-Control": "no-store" });
  });
}
