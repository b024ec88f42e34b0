import { createRoute } from "@hono/zod-openapi";
import { guard } from "../../../http/guard.ts";
import { bearer, errorResponses, json, jsonBody } from "../../../http/openapi.ts";
import type { ServiceContext } from "../../../services/context.ts";
import { createWellTest } from "../../../services/records/well-tests/create-well-test.ts";
import type { Router } from "../../router.ts";
import { CREATE_DESCRIPTION, RECORDS_TAG } from "../fields.ts";
import { wellTestRecord, wellTestRequest } from "./schema.ts";

const route = createRoute({
  method: "post",
  path: "/",
  tags: [RECORDS_TAG],
  summary: "Record a well test",
  description: CREATE_DESCRIPTION,
  security: bearer,
  request: jsonBody(wellTestRequest),
  responses: {
    201: json(wellTestRecord, "Well test recorded"),
    ...errorResponses(400, 401, 403, 404, 409),
  },
});

export function mountCreateWellTest(router: Router, ctx: ServiceContext): void {
  router.openapi({ ...route, middleware: guard(ctx, "records:write") }, async (c) =>
    c.json(await createWellTest(ctx, c.get("auth"), c.req.valid("json")), 201),
  );
}
