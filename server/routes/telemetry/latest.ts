import { createRoute, z } from "@hono/zod-openapi";
import { guard } from "../../http/guard.ts";
import { bearer, errorResponses, json } from "../../http/openapi.ts";
import type { ServiceContext } from "../../services/context.ts";
import { latestTelemetry } from "../../services/telemetry/latest.ts";
import type { Router } from "../router.ts";
import { assetParams, latestQuery, TELEMETRY_TAG, telemetryPayloadSchema } from "./schema.ts";

const route = createRoute({
  method: "get",
  path: "/{asset_id}",
  tags: [TELEMETRY_TAG],
  summary: "An asset's latest readings",
  description:
    "Newest first, grouped into one TelemetryPayload per timestamp (always present here), readings ordered by " +
    "variable with their unit. `limit` counts payloads, i.e. distinct timestamps (default 100, 1 to 10,000). " +
    "Raw readings are kept TELEMETRY_RETENTION_DAYS. Needs telemetry:read.",
  security: bearer,
  request: { params: assetParams, query: latestQuery },
  responses: {
    200: json(z.array(telemetryPayloadSchema), "Latest payloads"),
    ...errorResponses(400, 401, 403, 404),
  },
});

export function mountLatest(router: Router, ctx: ServiceContext): void {
  router.openapi({ ...route, middleware: guard(ctx, "telemetry:read") }, (c) =>
    c.json(
      latestTelemetry(ctx, c.get("auth"), c.req.valid("param").asset_id, c.req.valid("query").limit),
      200,
    ),
  );
}
