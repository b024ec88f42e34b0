import type { ServiceContext } from "../../../services/context.ts";
import { newRouter, type Router } from "../../router.ts";
import { mountCreateMovement } from "./create.ts";
import { mountListMovements } from "./list.ts";

/** /api/movements (spec §4, "Operations (ANH 0651)"). No PUT or DELETE: records are append-only. */
export function movementRoutes(ctx: ServiceContext): Router {
  const router = newRouter();
  mountListMovements(router, ctx);
  mountCreateMovement(router, ctx);
  return router;
}
