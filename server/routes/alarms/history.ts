import { createRoute, z } from "@hono/zod-openapi";
import { guard } from "../../http/guard.ts";
import { bearer, errorResponses, json } from "../../http/openapi.ts";
import { alarmHistory } from "../../services/alarms/alarm-history.ts";
import type { ServiceContext } from "../../services/context.ts";
import type { Router } from "../router.ts";
import { alarmHistoryEntrySchema, historyQuery } from "./schema.ts";

const route = createRoute({
  method: "get",
  path: "/history",
  tags: ["Alerts and alarms"],
  summary: "Alarm history: every raise, return to normal and acknowledgement",
  description: "Newest first. History is never deleted by clearing, acknowledging or deleting a rule.",
  security: bearer,
  request: { query: historyQuery },
  responses: {
    200: json(z.array(alarmHistoryEntrySchema), "Alarm events"),
    ...errorResponses(400, 401, 403, 404),
  },
});

export function mountAlarmHistory(router: Router, ctx: ServiceContext): void {
  router.openapi({ ...route, middleware: guard(ctx, "alarms:read") }, (c) => {
    const q = c.req.valid("query");
    const entries = alarmHistory(ctx, c.get("auth"), {
      projectId: q.project_id,
      from: q.from ? new Date(q.from) : undefined,
      to: q.to ? new Date(q.to) : undefined,
      limit: q.limit,
    });
    return c.json(entries, 200);
  });
}
