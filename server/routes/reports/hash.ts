import { createRoute, z } from "@hono/zod-openapi";
import { guard } from "../../http/guard.ts";
import { bearer, errorResponses } from "../../http/openapi.ts";
import type { ServiceContext } from "../../services/context.ts";
import { reportFile } from "../../services/reports/get-report.ts";
import type { Router } from "../router.ts";
import { ANH_TAG, reportIdParams } from "./schema.ts";

const route = createRoute({
  method: "get",
  path: "/reports/{id}/hash",
  tags: [ANH_TAG],
  summary: "The report's SHA-384 hash",
  description:
    "Lower-case hex SHA-384 of the downloaded bytes, as text/plain. 409 while the report is pending.",
  security: bearer,
  request: { params: reportIdParams },
  responses: {
    200: {
      description: "96 hex digits",
      content: { "text/plain": { schema: z.string().openapi({ pattern: "^[0-9a-f]{96}$" }) } },
    },
    ...errorResponses(400, 401, 403, 404, 409),
  },
});

export function mountReportHash(router: Router, ctx: ServiceContext): void {
  router.openapi({ ...route, middleware: guard(ctx, "reports:read") }, async (c) =>
    c.text((await reportFile(ctx, c.get("auth"), c.req.valid("param").id)).hash, 200),
  );
}
