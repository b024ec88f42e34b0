import { createRoute, z } from "@hono/zod-openapi";
import { guard } from "../../http/guard.ts";
import { bearer, errorResponses } from "../../http/openapi.ts";
import type { ServiceContext } from "../../services/context.ts";
import { latestTelemetry } from "../../services/telemetry/latest.ts";
import { rawTelemetryCsv } from "../../services/telemetry/raw-csv.ts";
import type { TelemetryService } from "../../services/telemetry/service.ts";
import type { Router } from "../router.ts";
import { wantsCsv } from "./csv-negotiation.ts";
import { assetParams, latestQuery, TELEMETRY_TAG, telemetryPayloadSchema } from "./schema.ts";

const route = createRoute({
  method: "get",
  path: "/{asset_id}",
  tags: [TELEMETRY_TAG],
  summary: "An asset's raw readings (JSON or CSV)",
  description:
    "JSON (default): newest first, grouped into one TelemetryPayload per timestamp (always present here), " +
    "readings ordered by variable with their unit. `limit` counts payloads, i.e. distinct timestamps " +
    "(default 100, 1 to 10,000). `from`/`to` bound the timestamps (inclusive; from must not be after to) " +
    "and `variable` (repeatable) keeps only those variables.\n\n" +
    "CSV (`format=csv`, or `Accept: text/csv` without `format`): RFC 4180, UTF-8, CRLF, as an attachment " +
    "named telemetry-<asset_id>.csv; columns timestamp (ISO 8601 UTC), variable, value, unit (empty when " +
    "none), one line per reading, ascending by timestamp then variable. It is streamed as the client reads " +
    "it and holds every reading in [from, to] (to defaults to now): the JSON default limit does not apply, " +
    "an explicit `limit` does (the newest `limit` timestamps, as in JSON).\n\n" +
    "Raw readings are kept TELEMETRY_RETENTION_DAYS. Needs telemetry:read.",
  security: bearer,
  request: { params: assetParams, query: latestQuery },
  responses: {
    200: {
      description: "Raw readings",
      headers: {
        "Content-Disposition": {
          schema: { type: "string" },
          description: 'CSV only: attachment; filename="telemetry-<asset_id>.csv"',
        },
      },
      content: {
        "application/json": { schema: z.array(telemetryPayloadSchema) },
        "text/csv": {
          schema: z.string().openapi({ example: "timestamp,variable,value,unit\r\n" }),
        },
      },
    },
    ...errorResponses(400, 401, 403, 404),
  },
});

export function mountLatest(router: Router, ctx: ServiceContext, telemetry: TelemetryService): void {
  router.openapi({ ...route, middleware: guard(ctx, "telemetry:read") }, async (c) => {
    const query = c.req.valid("query");
    const assetId = c.req.valid("param").asset_id;
    if (!wantsCsv(query.format, c.req.header("accept"))) {
      return c.json(await latestTelemetry(ctx, telemetry, c.get("auth"), assetId, query), 200);
    }
    const csv = await rawTelemetryCsv(ctx, c.get("auth"), assetId, query);
    return c.body(csv.body, 200, {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="${csv.filename}"`,
      "Cache-Control": "private, no-store",
    });
  });
}
