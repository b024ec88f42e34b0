import type { ServiceContext } from "../../services/context.ts";
import { newRouter, type Router } from "../router.ts";
import { mountAckAlarm } from "./ack.ts";
import { mountAlarmHistory } from "./history.ts";
import { mountListAlarms } from "./list.ts";

/** /api/alarms (spec §4, "Alerts and alarms"). Reads need alarms:read, acknowledging alarms:ack. */
export function alarmRoutes(ctx: ServiceContext): Router {
  const router = newRouter();
  mountListAlarms(router, ctx);
  mountAlarmHistory(router, ctx);
  mountAckAlarm(router, ctx);
  return router;
}
