import { createRoute, z } from "@hono/zod-openapi";
import { guard } from "../../http/guard.ts";
import { bearer, errorResponses, json } from "../../http/openapi.ts";
import { listAlarms } from "../../services/alarms/list-alarms.ts";
import type { ServiceContext } from "../../services/context.ts";
import type { Router } from "../router.ts";
import { alarmEventSchema, alarmsQuery } from "./schema.ts";

const route = createRoute({
  method: "get",
  path: "/",
  tags: ["Alerts and alarms"],
  summary: "List a project's alarms that still need attention",
  description:
    "ISA-18.2: an alarm is listed until it has both returned to normal (`active` false) and been " +
    "acknowledged. Newest first.",
  security: bearer,
  request: { query: alarmsQuery },
  responses: {
    200: json(z.array(alarmEventSchema), "Listed alarms"),
    ...errorResponses(400, 401, 403, 404),
  },
});

export function mountListAlarms(router: Router, ctx: ServiceContext): void {
  router.openapi({ ...route, middleware: guard(ctx, "alarms:read") }, async (c) =>
    c.json(await listAlarms(ctx, c.get("auth"), c.req.valid("query").project_id), 200),
  );
}
