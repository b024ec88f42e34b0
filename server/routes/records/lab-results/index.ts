import type { ServiceContext } from "../../../services/context.ts";
import { newRouter, type Router } from "../../router.ts";
import { mountCreateLabResult } from "./create.ts";
import { mountListLabResult } from "./list.ts";

/** /api/lab-results (spec §4, "Operations (ANH 0651)"). No PUT or DELETE: records are append-only. */
export function labResultRoutes(ctx: ServiceContext): Router {
  const router = newRouter();
  mountListLabResult(router, ctx);
  mountCreateLabResult(router, ctx);
  return router;
}
