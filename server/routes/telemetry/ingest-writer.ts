import { fromColumns, type PayloadColumns } from "../../http-workers/payload-columns.ts";
import type { AuthContext } from "../../services/auth/auth-context.ts";
import type { ServiceContext } from "../../services/context.ts";
import { ingestTelemetry, type TelemetryPayloadInput } from "../../services/telemetry/ingest.ts";
import type { TelemetryService } from "../../services/telemetry/service.ts";
import type { WriteResult } from "../../store/ports/telemetry-store.ts";

/** POST /telemetry takes one payload, POST /telemetry/batch its `items`. */
export type IngestShape = "payload" | "batch";

/** How an error names payload i's fields: "" for a lone payload, "items.3." in a batch. */
const fieldOf: Record<IngestShape, (index: number) => string> = {
  payload: () => "",
  batch: (i) => `items.${i}.`,
};

/**
 * What the ingest routes call once a request is authenticated and schema-valid. On the main
 * thread it is the ingest service itself; in an HTTP worker thread it asks the main thread, which
 * owns the database, to run that same service (server/http-workers/).
 */
export type IngestWriter = (
  auth: AuthContext,
  payloads: TelemetryPayloadInput[],
  shape: IngestShape,
) => Promise<WriteResult>;

export function localIngestWriter(ctx: ServiceContext, telemetry: TelemetryService): IngestWriter {
  return (auth, payloads, shape) => ingestTelemetry(ctx, telemetry, auth, payloads, fieldOf[shape]);
}

/** The same, given the payloads in columns (the byte parser's output, or an HTTP worker's message). */
export type ColumnsWriter = (
  auth: AuthContext,
  columns: PayloadColumns,
  shape: IngestShape,
) => Promise<WriteResult>;

export function localColumnsWriter(ctx: ServiceContext, telemetry: TelemetryService): ColumnsWriter {
  const write = localIngestWriter(ctx, telemetry);
  return (auth, columns, shape) => write(auth, fromColumns(columns), shape);
}
