import type { ServiceContext } from "../../../services/context.ts";
import { newRouter, type Router } from "../../router.ts";
import { mountCreateMeterReading } from "./create.ts";
import { mountListMeterReading } from "./list.ts";

/** /api/meters/readings (spec §4, "Operations (ANH 0651)"). No PUT or DELETE: records are append-only. */
export function meterReadingRoutes(ctx: ServiceContext): Router {
  const router = newRouter();
  mountListMeterReading(router, ctx);
  mountCreateMeterReading(router, ctx);
  return router;
}
