import { createRoute } from "@hono/zod-openapi";
import { guard } from "../../http/guard.ts";
import { bearer, errorResponses, json } from "../../http/openapi.ts";
import { acknowledgeAlarm } from "../../services/alarms/ack-alarm.ts";
import type { ServiceContext } from "../../services/context.ts";
import type { Router } from "../router.ts";
import { alarmEventSchema, alarmIdParams } from "./schema.ts";

const route = createRoute({
  method: "post",
  path: "/{id}/ack",
  tags: ["Alerts and alarms"],
  summary: "Acknowledge an alarm",
  description:
    "Records who acknowledged and when. Idempotent: acknowledging an acknowledged alarm answers 200 with " +
    "it unchanged (the first acknowledgement is kept). A returned, acknowledged alarm leaves GET /alarms.",
  security: bearer,
  request: { params: alarmIdParams },
  responses: {
    200: json(alarmEventSchema, "The acknowledged alarm"),
    ...errorResponses(400, 401, 403, 404),
  },
});

export function mountAckAlarm(router: Router, ctx: ServiceContext): void {
  router.openapi({ ...route, middleware: guard(ctx, "alarms:ack") }, async (c) =>
    c.json(await acknowledgeAlarm(ctx, c.get("auth"), c.req.valid("param").id), 200),
  );
}
