import type { ServiceContext } from "../../services/context.ts";
import { newRouter, type Router } from "../router.ts";
import { mountListAudit } from "./list.ts";
import { mountVerifyAudit } from "./verify.ts";

/** /api/audit: read-only; the log itself is written only by appendAudit inside each change. */
export function auditRoutes(ctx: ServiceContext): Router {
  const router = newRouter();
  mountListAudit(router, ctx);
  mountVerifyAudit(router, ctx);
  return router;
}
