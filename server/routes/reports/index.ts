import type { ServiceContext } from "../../services/context.ts";
import { newRouter, type Router } from "../router.ts";
import { mountDownloadReport } from "./download.ts";
import { mountGenerateReport } from "./generate.ts";
import { mountGetReport } from "./get.ts";
import { mountReportHash } from "./hash.ts";
import { mountListReports } from "./list.ts";
import { mountPreviewReport } from "./preview.ts";
import { mountSubmitReport } from "./submit.ts";

/** /api/anh: daily ANH 0651 production reports. */
export function anhRoutes(ctx: ServiceContext): Router {
  const router = newRouter();
  mountListReports(router, ctx);
  mountGenerateReport(router, ctx);
  // Before /reports/{id}, which would take "preview" for an id.
  mountPreviewReport(router, ctx);
  mountGetReport(router, ctx);
  mountDownloadReport(router, ctx);
  mountReportHash(router, ctx);
  mountSubmitReport(router, ctx);
  return router;
}
