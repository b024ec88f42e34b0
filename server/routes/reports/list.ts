import { createRoute, z } from "@hono/zod-openapi";
import { guard } from "../../http/guard.ts";
import { bearer, errorResponses, json } from "../../http/openapi.ts";
import type { ServiceContext } from "../../services/context.ts";
import { listReports } from "../../services/reports/list-reports.ts";
import type { Router } from "../router.ts";
import { ANH_TAG, anhReportSchema, listReportsQuery } from "./schema.ts";

const route = createRoute({
  method: "get",
  path: "/reports",
  tags: [ANH_TAG],
  summary: "List daily ANH 0651 reports",
  description:
    "Every version of the reports of the caller's projects (or of `project_id`), newest day first. " +
    "Without content; GET /anh/reports/{id} returns it. 404 when project_id is not one of the caller's.",
  security: bearer,
  request: { query: listReportsQuery },
  responses: {
    200: json(z.array(anhReportSchema), "Reports"),
    ...errorResponses(400, 401, 403, 404),
  },
});

export function mountListReports(router: Router, ctx: ServiceContext): void {
  router.openapi({ ...route, middleware: guard(ctx, "reports:read") }, async (c) =>
    c.json(await listReports(ctx, c.get("auth"), c.req.valid("query").project_id), 200),
  );
}
