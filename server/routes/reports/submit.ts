import { createRoute } from "@hono/zod-openapi";
import { guard } from "../../http/guard.ts";
import { bearer, errorResponses, json } from "../../http/openapi.ts";
import type { ServiceContext } from "../../services/context.ts";
import { submitReport } from "../../services/reports/submit-report.ts";
import type { Router } from "../router.ts";
import { ANH_TAG, anhReportSchema, reportIdParams } from "./schema.ts";

const route = createRoute({
  method: "post",
  path: "/reports/{id}/submit",
  tags: [ANH_TAG],
  summary: "Mark a report as submitted to the ANH",
  description:
    "Records who submitted the report and when (status generated → submitted). 409 when it is pending " +
    "or was already submitted. Requires supervisor or above.",
  security: bearer,
  request: { params: reportIdParams },
  responses: {
    200: json(anhReportSchema, "The submitted report"),
    ...errorResponses(400, 401, 403, 404, 409),
  },
});

export function mountSubmitReport(router: Router, ctx: ServiceContext): void {
  router.openapi({ ...route, middleware: guard(ctx, "reports:write") }, async (c) =>
    c.json(await submitReport(ctx, c.get("auth"), c.req.valid("param").id), 200),
  );
}
