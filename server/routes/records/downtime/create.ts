import { createRoute } from "@hono/zod-openapi";
import { guard } from "../../../http/guard.ts";
import { bearer, errorResponses, json, jsonBody } from "../../../http/openapi.ts";
import type { ServiceContext } from "../../../services/context.ts";
import { createDowntime } from "../../../services/records/downtime/create-downtime.ts";
import type { Router } from "../../router.ts";
import { CREATE_DESCRIPTION, RECORDS_TAG } from "../fields.ts";
import { downtimeRecord, downtimeRequest } from "./schema.ts";

const route = createRoute({
  method: "post",
  path: "/",
  tags: [RECORDS_TAG],
  summary: "Record a downtime period",
  description: CREATE_DESCRIPTION,
  security: bearer,
  request: jsonBody(downtimeRequest),
  responses: {
    201: json(downtimeRecord, "Downtime recorded"),
    ...errorResponses(400, 401, 403, 404, 409),
  },
});

export function mountCreateDowntime(router: Router, ctx: ServiceContext): void {
  router.openapi({ ...route, middleware: guard(ctx, "records:write") }, async (c) =>
    c.json(await createDowntime(ctx, c.get("auth"), c.req.valid("json")), 201),
  );
}
