import { createRoute } from "@hono/zod-openapi";
import { guard } from "../../http/guard.ts";
import { bearer, errorResponses, json } from "../../http/openapi.ts";
import type { ServiceContext } from "../../services/context.ts";
import { getReport } from "../../services/reports/get-report.ts";
import type { Router } from "../router.ts";
import { ANH_TAG, anhReportWithContentSchema, reportIdParams } from "./schema.ts";

const route = createRoute({
  method: "get",
  path: "/reports/{id}",
  tags: [ANH_TAG],
  summary: "Get a report with its content",
  description:
    "The report and its content (ANHReportContent, parsed from the stored canonical bytes; null while " +
    "pending). For the exact bytes that the hash covers, use /download.",
  security: bearer,
  request: { params: reportIdParams },
  responses: {
    200: json(anhReportWithContentSchema, "The report"),
    ...errorResponses(400, 401, 403, 404),
  },
});

export function mountGetReport(router: Router, ctx: ServiceContext): void {
  router.openapi({ ...route, middleware: guard(ctx, "reports:read") }, async (c) =>
    c.json(await getReport(ctx, c.get("auth"), c.req.valid("param").id), 200),
  );
}
