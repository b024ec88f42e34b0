import { createRoute } from "@hono/zod-openapi";
import { guard } from "../../../http/guard.ts";
import { bearer, errorResponses, json, jsonBody } from "../../../http/openapi.ts";
import type { ServiceContext } from "../../../services/context.ts";
import { createLabResult } from "../../../services/records/lab-results/create-lab-result.ts";
import type { Router } from "../../router.ts";
import { CREATE_DESCRIPTION, RECORDS_TAG } from "../fields.ts";
import { labResultRecord, labResultRequest } from "./schema.ts";

const route = createRoute({
  method: "post",
  path: "/",
  tags: [RECORDS_TAG],
  summary: "Record a lab result",
  description: CREATE_DESCRIPTION,
  security: bearer,
  request: jsonBody(labResultRequest),
  responses: {
    201: json(labResultRecord, "Lab result recorded"),
    ...errorResponses(400, 401, 403, 404, 409),
  },
});

export function mountCreateLabResult(router: Router, ctx: ServiceContext): void {
  router.openapi({ ...route, middleware: guard(ctx, "records:write") }, async (c) =>
    c.json(await createLabResult(ctx, c.get("auth"), c.req.valid("json")), 201),
  );
}
