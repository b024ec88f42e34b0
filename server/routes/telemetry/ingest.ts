import { createRoute } from "@hono/zod-openapi";
import { guard } from "../../http/guard.ts";
import { bearer, errorResponses, json, jsonBody } from "../../http/openapi.ts";
import type { ServiceContext } from "../../services/context.ts";
import type { Router } from "../router.ts";
import { telemetryPayloadBody } from "./ingest-body.ts";
import { ingestFromBytes } from "./ingest-from-bytes.ts";
import type { ColumnsWriter, IngestWriter } from "./ingest-writer.ts";
import { ingestResultSchema, TELEMETRY_TAG, telemetryPayloadSchema } from "./schema.ts";

const route = createRoute({
  method: "post",
  path: "/",
  tags: [TELEMETRY_TAG],
  summary: "Ingest the readings of one asset at one instant",
  description:
    "Stores every reading or none. `timestamp` defaults to now and may be at most 5 minutes ahead of the " +
    "server clock; values must be finite numbers; up to 10,000 readings. A reading whose asset, variable and " +
    "millisecond are already stored is ignored and counted in `duplicates` (first write wins), so a client " +
    "may safely resend. Counts toward the project's monthly telemetry points (billing). Needs telemetry:write.",
  security: bearer,
  request: jsonBody(telemetryPayloadSchema),
  responses: {
    201: json(ingestResultSchema, "Stored"),
    ...errorResponses(400, 401, 403, 404, 413),
  },
});

export function mountIngest(
  router: Router,
  ctx: ServiceContext,
  write: IngestWriter,
  writeColumns: ColumnsWriter,
): void {
  // The document shows telemetryPayloadSchema. Requests are read from their bytes when the byte
  // parser takes them (ingest-from-bytes.ts), else parsed by the schema's fast path (ingest-body.ts).
  router.openAPIRegistry.registerPath(route);
  const served = { ...route, hide: true, request: jsonBody(telemetryPayloadBody) };
  router.openapi(
    { ...served, middleware: [...guard(ctx, "telemetry:write"), ingestFromBytes("payload", writeColumns)] },
    async (c) => {
      const result = await write(c.get("auth"), [c.req.valid("json")], "payload");
      // `expired` cannot occur here: such timestamps were refused with a 400.
      return c.json({ accepted: result.accepted, duplicates: result.duplicates }, 201);
    },
  );
}
