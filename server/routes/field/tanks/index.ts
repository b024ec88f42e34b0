import type { ServiceContext } from "../../../services/context.ts";
import { newRouter, type Router } from "../../router.ts";
import { mountListTanks } from "./list.ts";

/** /api/tanks (spec §4, "Alerts and alarms"). */
export function tanksRoutes(ctx: ServiceContext): Router {
  const router = newRouter();
  mountListTanks(router, ctx);
  return router;
}
