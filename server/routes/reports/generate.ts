import { createRoute } from "@hono/zod-openapi";
import { guard } from "../../http/guard.ts";
import { bearer, errorResponses, json, jsonBody } from "../../http/openapi.ts";
import type { ServiceContext } from "../../services/context.ts";
import { requestGeneration } from "../../services/reports/request-generation.ts";
import type { Router } from "../router.ts";
import { ANH_TAG, anhReportSchema, generateReportRequest } from "./schema.ts";

const route = createRoute({
  method: "post",
  path: "/reports/generate",
  tags: [ANH_TAG],
  summary: "Generate a day's report now",
  description:
    "Generates the project's report for a closed production day (00:00–24:00 in the project's time " +
    "zone). A pending report for the day is filled in; otherwise a new version is added (version + 1, " +
    "supersedes = the day's latest version), leaving earlier versions' bytes unchanged. 409 when the " +
    "day has not closed yet, and when it ended before the project was created and the project holds no " +
    "readings, records or alarms of it (a backfilled history can be reported). Requires supervisor or above.",
  security: bearer,
  request: jsonBody(generateReportRequest),
  responses: {
    201: json(anhReportSchema, "The generated report"),
    ...errorResponses(400, 401, 403, 404, 409),
  },
});

export function mountGenerateReport(router: Router, ctx: ServiceContext): void {
  router.openapi({ ...route, middleware: guard(ctx, "reports:write") }, async (c) =>
    c.json(await requestGeneration(ctx, c.get("auth"), c.req.valid("json")), 201),
  );
}
