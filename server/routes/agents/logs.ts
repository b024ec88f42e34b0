import { createRoute, z } from "@hono/zod-openapi";
import { guard } from "../../http/guard.ts";
import { bearer, errorResponses, json, jsonBody } from "../../http/openapi.ts";
import { listAgentLogs, postAgentLog } from "../../services/agents/agent-logs.ts";
import type { ServiceContext } from "../../services/context.ts";
import type { Router } from "../router.ts";
import { logEntrySchema, logsQuery, newLogBody } from "./schema.ts";

const listRoute = createRoute({
  method: "get",
  path: "/agents/logs",
  tags: ["Edge agents"],
  summary: "Agent logs, newest first",
  security: bearer,
  request: { query: logsQuery },
  responses: { 200: json(z.array(logEntrySchema), "Log entries"), ...errorResponses(400, 401, 403, 404) },
});

const postRoute = createRoute({
  method: "post",
  path: "/agents/logs",
  tags: ["Edge agents"],
  summary: "Append an agent log entry",
  security: bearer,
  request: jsonBody(newLogBody),
  responses: { 201: json(logEntrySchema, "Stored"), ...errorResponses(400, 401, 403, 404) },
});

export function mountLogs(router: Router, ctx: ServiceContext): void {
  router.openapi({ ...listRoute, middleware: guard(ctx, "config:read") }, async (c) => {
    const q = c.req.valid("query");
    return c.json(
      await listAgentLogs(ctx, c.get("auth"), { projectId: q.project_id, level: q.level, limit: q.limit }),
      200,
    );
  });
  router.openapi({ ...postRoute, middleware: guard(ctx, "telemetry:write") }, async (c) => {
    const b = c.req.valid("json");
    return c.json(
      await postAgentLog(ctx, c.get("auth"), b.project_id, {
        level: b.level,
        message: b.message,
        category: b.category,
      }),
      201,
    );
  });
}
