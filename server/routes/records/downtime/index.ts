import type { ServiceContext } from "../../../services/context.ts";
import { newRouter, type Router } from "../../router.ts";
import { mountCreateDowntime } from "./create.ts";
import { mountListDowntime } from "./list.ts";

/** /api/downtime (spec §4, "Operations (ANH 0651)"). No PUT or DELETE: records are append-only. */
export function downtimeRoutes(ctx: ServiceContext): Router {
  const router = newRouter();
  mountListDowntime(router, ctx);
  mountCreateDowntime(router, ctx);
  return router;
}
