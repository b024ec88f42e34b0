import type { ServiceContext } from "../../../services/context.ts";
import { newRouter, type Router } from "../../router.ts";
import { mountCreateWellTest } from "./create.ts";
import { mountListWellTest } from "./list.ts";

/** /api/well-tests (spec §4, "Operations (ANH 0651)"). No PUT or DELETE: records are append-only. */
export function wellTestRoutes(ctx: ServiceContext): Router {
  const router = newRouter();
  mountListWellTest(router, ctx);
  mountCreateWellTest(router, ctx);
  return router;
}
