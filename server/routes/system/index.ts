import type { BuiltDocument } from "../../http/openapi-document.ts";
import type { ServiceContext } from "../../services/context.ts";
import type { HealthProbes } from "../../services/system/health.ts";
import { newRouter, type Router } from "../router.ts";
import { mountDocsPage } from "./docs-page.ts";
import { mountHealth } from "./health.ts";
import { mountMetrics } from "./metrics.ts";
import { mountOpenApiFiles } from "./openapi-files.ts";
import { mountSwaggerAssets } from "./swagger-assets.ts";

export type SystemRouteDeps = {
  health: HealthProbes;
  /** The app's OpenAPI document, built once on first use. */
  document: () => BuiltDocument;
  /** The HTTP worker threads' metrics (prom-client JSON, one array per thread). */
  workerMetrics: () => Promise<unknown[][]>;
};

/** Root paths (spec §4, no /api prefix): /health, /metrics, /docs and its files. All public. */
export function systemRoutes(ctx: ServiceContext, deps: SystemRouteDeps): Router {
  const router = newRouter();
  mountHealth(router, ctx, deps.health);
  mountMetrics(router, ctx.metrics, deps.workerMetrics);
  mountDocsPage(router);
  mountOpenApiFiles(router, deps.document);
  mountSwaggerAssets(router);
  return router;
}
