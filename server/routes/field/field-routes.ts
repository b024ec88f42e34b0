import type { ServiceContext } from "../../services/context.ts";
import { newRouter, type Router } from "../router.ts";
import { mountAssetRoutes } from "./assets/index.ts";
import { mountDeviceRoutes } from "./devices/index.ts";
import { mountProjectRoutes } from "./projects/index.ts";
import { mountVariableRoutes } from "./variables/index.ts";

/**
 * /api/edge: the field model (projects, assets, devices, variables). Authentication is per route,
 * never `use("*")`: other routers share the /api/edge prefix with their own authentication.
 */
export function edgeFieldRoutes(ctx: ServiceContext): Router {
  const router = newRouter();
  mountProjectRoutes(router, ctx);
  mountAssetRoutes(router, ctx);
  mountDeviceRoutes(router, ctx);
  mountVariableRoutes(router, ctx);
  return router;
}
