import type { ServiceContext } from "../../services/context.ts";
import { newRouter, type Router } from "../router.ts";
import { mountHistory } from "./history.ts";
import { mountIngest } from "./ingest.ts";
import { mountIngestBatch } from "./ingest-batch.ts";
import { mountLatest } from "./latest.ts";

/** /api/telemetry (spec §4, Telemetry). Writes need telemetry:write, reads telemetry:read. */
export function telemetryRoutes(ctx: ServiceContext): Router {
  const router = newRouter();
  mountIngest(router, ctx);
  mountIngestBatch(router, ctx);
  mountLatest(router, ctx);
  mountHistory(router, ctx);
  return router;
}
