import { createRoute, z } from "@hono/zod-openapi";
import { guard } from "../../../http/guard.ts";
import { bearer, errorResponses, json } from "../../../http/openapi.ts";
import type { ServiceContext } from "../../../services/context.ts";
import { listLabResults } from "../../../services/records/lab-results/list-lab-results.ts";
import type { Router } from "../../router.ts";
import { LIST_DESCRIPTION, RECORDS_TAG, recordListQuery } from "../fields.ts";
import { labResultRecord } from "./schema.ts";

const route = createRoute({
  method: "get",
  path: "/",
  tags: [RECORDS_TAG],
  summary: "List lab results",
  description: `${LIST_DESCRIPTION} from/to bound \`sample_date\`.`,
  security: bearer,
  request: { query: recordListQuery },
  responses: {
    200: json(z.array(labResultRecord), "Lab results, latest sample_date first"),
    ...errorResponses(400, 401, 403, 404),
  },
});

export function mountListLabResult(router: Router, ctx: ServiceContext): void {
  router.openapi({ ...route, middleware: guard(ctx, "records:read") }, async (c) =>
    c.json(await listLabResults(ctx, c.get("auth"), c.req.valid("query")), 200),
  );
}
