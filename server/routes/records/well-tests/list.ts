import { createRoute, z } from "@hono/zod-openapi";
import { guard } from "../../../http/guard.ts";
import { bearer, errorResponses, json } from "../../../http/openapi.ts";
import type { ServiceContext } from "../../../services/context.ts";
import { listWellTests } from "../../../services/records/well-tests/list-well-tests.ts";
import type { Router } from "../../router.ts";
import { LIST_DESCRIPTION, RECORDS_TAG, recordListQuery } from "../fields.ts";
import { wellTestRecord } from "./schema.ts";

const route = createRoute({
  method: "get",
  path: "/",
  tags: [RECORDS_TAG],
  summary: "List well tests",
  description: `${LIST_DESCRIPTION} from/to bound \`test_date\`.`,
  security: bearer,
  request: { query: recordListQuery },
  responses: {
    200: json(z.array(wellTestRecord), "Well tests, latest test_date first"),
    ...errorResponses(400, 401, 403, 404),
  },
});

export function mountListWellTest(router: Router, ctx: ServiceContext): void {
  router.openapi({ ...route, middleware: guard(ctx, "records:read") }, async (c) =>
    c.json(await listWellTests(ctx, c.get("auth"), c.req.valid("query")), 200),
  );
}
