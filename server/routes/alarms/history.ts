import { createRoute, z } from "@hono/zod-openapi";
import { guard } from "../../http/guard.ts";
import { bearer, errorResponses } from "../../http/openapi.ts";
import { alarmHistory } from "../../services/alarms/alarm-history.ts";
import { alarmHistoryCsv } from "../../services/alarms/alarm-history-csv.ts";
import type { ServiceContext } from "../../services/context.ts";
import type { Router } from "../router.ts";
import { wantsCsv } from "../telemetry/csv-negotiation.ts";
import { alarmHistoryEntrySchema, historyQuery } from "./schema.ts";

const route = createRoute({
  method: "get",
  path: "/history",
  tags: ["Alerts and alarms"],
  summary: "Alarm history: every raise, return to normal and acknowledgement",
  description:
    "Newest first. History is never deleted by clearing, acknowledging or deleting a rule. Filters: " +
    "time (`from`, `to`), `asset_id`, `severity`, `alarm_type`.\n\n" +
    "CSV (`format=csv`, or `Accept: text/csv` without `format`): RFC 4180, UTF-8, CRLF, as an attachment " +
    "named alarm-history-<project_id>.csv; columns at, event, severity, alarm_type, asset_id, variable, " +
    "value, message, alarm_id, user_id (empty when null); the same rows and order as JSON.",
  security: bearer,
  request: { query: historyQuery },
  responses: {
    200: {
      description: "Alarm events",
      headers: {
        "Content-Disposition": {
          schema: { type: "string" },
          description: 'CSV only: attachment; filename="alarm-history-<project_id>.csv"',
        },
      },
      content: {
        "application/json": { schema: z.array(alarmHistoryEntrySchema) },
        "text/csv": { schema: z.string().openapi({ example: "at,event,severity,alarm_type,…\r\n" }) },
      },
    },
    ...errorResponses(400, 401, 403, 404),
  },
});

export function mountAlarmHistory(router: Router, ctx: ServiceContext): void {
  router.openapi({ ...route, middleware: guard(ctx, "alarms:read") }, async (c) => {
    const q = c.req.valid("query");
    const entries = await alarmHistory(ctx, c.get("auth"), {
      projectId: q.project_id,
      from: q.from ? new Date(q.from) : undefined,
      to: q.to ? new Date(q.to) : undefined,
      assetId: q.asset_id,
      severity: q.severity,
      alarmType: q.alarm_type,
      limit: q.limit,
    });
    if (!wantsCsv(q.format, c.req.header("accept"))) return c.json(entries, 200);
    return c.body(alarmHistoryCsv(entries), 200, {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="alarm-history-${q.project_id}.csv"`,
    });
  });
}
