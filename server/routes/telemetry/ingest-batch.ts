import { createRoute } from "@hono/zod-openapi";
import { guard } from "../../http/guard.ts";
import { bearer, errorResponses, json, jsonBody } from "../../http/openapi.ts";
import type { ServiceContext } from "../../services/context.ts";
import type { Router } from "../router.ts";
import { telemetryBatchBody } from "./ingest-body.ts";
import { ingestFromBytes } from "./ingest-from-bytes.ts";
import type { ColumnsWriter, IngestWriter } from "./ingest-writer.ts";
import { ingestResultSchema, TELEMETRY_TAG, telemetryBatchSchema } from "./schema.ts";

const route = createRoute({
  method: "post",
  path: "/batch",
  tags: [TELEMETRY_TAG],
  summary: "Ingest many payloads at once",
  description:
    "The payloads of TelemetryPayload, possibly of several assets, stored together or not at all: one bad " +
    "item is a 400 (or 404 for its asset) naming `items.<i>.<field>`, and nothing is stored. At most 10,000 " +
    "readings in total (413 beyond). Duplicates are ignored as in POST /telemetry. Needs telemetry:write.",
  security: bearer,
  request: jsonBody(telemetryBatchSchema),
  responses: {
    201: json(ingestResultSchema, "Stored"),
    ...errorResponses(400, 401, 403, 404, 413),
  },
});

export function mountIngestBatch(
  router: Router,
  ctx: ServiceContext,
  write: IngestWriter,
  writeColumns: ColumnsWriter,
): void {
  // The document shows telemetryBatchSchema. Requests are read from their bytes when the byte
  // parser takes them (ingest-from-bytes.ts), else parsed by the schema's fast path (ingest-body.ts).
  router.openAPIRegistry.registerPath(route);
  const served = { ...route, hide: true, request: jsonBody(telemetryBatchBody) };
  router.openapi(
    { ...served, middleware: [...guard(ctx, "telemetry:write"), ingestFromBytes("batch", writeColumns)] },
    async (c) => {
      const { items } = c.req.valid("json");
      const result = await write(c.get("auth"), items, "batch");
      // `expired` cannot occur here: such timestamps were refused with a 400.
      return c.json({ accepted: result.accepted, duplicates: result.duplicates }, 201);
    },
  );
}
