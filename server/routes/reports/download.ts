import { createRoute } from "@hono/zod-openapi";
import type { Context } from "hono";
import { guard } from "../../http/guard.ts";
import { bearer, errorResponses } from "../../http/openapi.ts";
import type { ServiceContext } from "../../services/context.ts";
import { anhReportContentSchema } from "../../services/reports/content-schema.ts";
import { type ReportFile, reportFile } from "../../services/reports/get-report.ts";
import type { Router } from "../router.ts";
import { ANH_TAG, reportIdParams } from "./schema.ts";

const route = createRoute({
  method: "get",
  path: "/reports/{id}/download",
  tags: [ANH_TAG],
  summary: "Download the report file",
  description:
    "Exactly the stored bytes (RFC 8785 canonical JSON, UTF-8) as an attachment named " +
    "anh-<project>-<date>-v<version>.json; `sha384sum` of the file equals X-Content-SHA384 and " +
    "GET /hash. The ETag is the quoted hash (a generated report's bytes never change). 409 while " +
    "the report is pending.",
  security: bearer,
  request: { params: reportIdParams },
  responses: {
    200: {
      description: "The report file",
      headers: {
        "Content-Disposition": { schema: { type: "string" }, description: "attachment; filename=…" },
        "X-Content-SHA384": { schema: { type: "string" }, description: "SHA-384 of the body, hex" },
        ETag: { schema: { type: "string" }, description: "the hash, quoted: the bytes never change" },
      },
      content: {
        "application/json": { schema: anhReportContentSchema },
      },
    },
    304: { description: "Unchanged: If-None-Match named this report's ETag" },
    ...errorResponses(400, 401, 403, 404, 409),
  },
});

/** The body is the stored buffer itself, never re-serialised: the hash covers exactly these bytes. */
function fileResponse(c: Context, file: ReportFile): Response {
  const etag = `"${file.hash}"`;
  if (
    c.req
      .header("if-none-match")
      ?.split(/\s*,\s*/)
      .includes(etag)
  ) {
    return c.body(null, 304, { ETag: etag });
  }
  return c.body(new Uint8Array(file.bytes), 200, {
    ETag: etag,
    "Content-Type": "application/json",
    "Content-Disposition": `attachment; filename="${file.filename}"`,
    "X-Content-SHA384": file.hash,
    "Cache-Control": "private, no-store",
  });
}

export function mountDownloadReport(router: Router, ctx: ServiceContext): void {
  router.openapi({ ...route, middleware: guard(ctx, "reports:read") }, async (c) =>
    fileResponse(c, await reportFile(ctx, c.get("auth"), c.req.valid("param").id)),
  );
}
