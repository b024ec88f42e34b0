import { createRoute } from "@hono/zod-openapi";
import { guard } from "../../http/guard.ts";
import { bearer, errorResponses, json } from "../../http/openapi.ts";
import type { ServiceContext } from "../../services/context.ts";
import { previewReport } from "../../services/reports/preview-report.ts";
import type { Router } from "../router.ts";
import { ANH_TAG, previewQuery, reportPreviewSchema } from "./schema.ts";

const route = createRoute({
  method: "get",
  path: "/reports/preview",
  tags: [ANH_TAG],
  summary: "Preview a day's report before it closes",
  description:
    "The content the project's report of `date` (default: today in the project's time zone) would have " +
    "if generated now, built by the same code as a generated report, so its completeness and data-quality " +
    "figures are the ones the report would show. Marked provisional; no hash; nothing is stored or " +
    "audited. For a day still open, expected samples cover the whole day, so the rest of the day counts " +
    "as missing until it has passed. A closed day previews too (what re-generating it would give); a day " +
    "that has not begun is a 400. `content.report.id` is the nil UUID unless a pending report waits for " +
    "the day. Same roles as reading reports.",
  security: bearer,
  request: { query: previewQuery },
  responses: {
    200: json(reportPreviewSchema, "The provisional content"),
    ...errorResponses(400, 401, 403, 404, 409),
  },
});

export function mountPreviewReport(router: Router, ctx: ServiceContext): void {
  router.openapi({ ...route, middleware: guard(ctx, "reports:read") }, async (c) =>
    c.json(await previewReport(ctx, c.get("auth"), c.req.valid("query")), 200),
  );
}
