import { createRoute } from "@hono/zod-openapi";
import { guard } from "../../../http/guard.ts";
import { bearer, errorResponses, json, jsonBody } from "../../../http/openapi.ts";
import type { ServiceContext } from "../../../services/context.ts";
import { createMeterReading } from "../../../services/records/meter-readings/create-meter-reading.ts";
import type { Router } from "../../router.ts";
import { CREATE_DESCRIPTION, RECORDS_TAG } from "../fields.ts";
import { meterReadingRecord, meterReadingRequest } from "./schema.ts";

const route = createRoute({
  method: "post",
  path: "/",
  tags: [RECORDS_TAG],
  summary: "Record a meter reading",
  description: CREATE_DESCRIPTION,
  security: bearer,
  request: jsonBody(meterReadingRequest),
  responses: {
    201: json(meterReadingRecord, "Meter reading recorded"),
    ...errorResponses(400, 401, 403, 404, 409),
  },
});

export function mountCreateMeterReading(router: Router, ctx: ServiceContext): void {
  router.openapi({ ...route, middleware: guard(ctx, "records:write") }, async (c) =>
    c.json(await createMeterReading(ctx, c.get("auth"), c.req.valid("json")), 201),
  );
}
