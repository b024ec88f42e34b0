import type { ServiceContext } from "../../services/context.ts";
import type { TelemetryService } from "../../services/telemetry/service.ts";
import { newRouter, type Router } from "../router.ts";
import { mountHistory } from "./history.ts";
import { mountIngest } from "./ingest.ts";
import { mountIngestBatch } from "./ingest-batch.ts";
import {
  type ColumnsWriter,
  type IngestWriter,
  localColumnsWriter,
  localIngestWriter,
} from "./ingest-writer.ts";
import { mountLatest } from "./latest.ts";

/** /api/telemetry (spec §4, Telemetry). Writes need telemetry:write, reads telemetry:read. */
export function telemetryRoutes(ctx: ServiceContext, telemetry: TelemetryService): Router {
  const router = telemetryIngestRoutes(
    ctx,
    localIngestWriter(ctx, telemetry),
    localColumnsWriter(ctx, telemetry),
  );
  mountLatest(router, ctx, telemetry);
  mountHistory(router, ctx);
  return router;
}

/**
 * The two ingest operations alone: what an HTTP worker thread serves, writing through `write`, or
 * `writeColumns` for bodies read straight from their bytes.
 */
export function telemetryIngestRoutes(
  ctx: ServiceContext,
  write: IngestWriter,
  writeColumns: ColumnsWriter,
): Router {
  const router = newRouter();
  mountIngest(router, ctx, write, writeColumns);
  mountIngestBatch(router, ctx, write, writeColumns);
  return router;
}
