import { createRoute } from "@hono/zod-openapi";
import { guard } from "../../http/guard.ts";
import { bearer, errorResponses, json } from "../../http/openapi.ts";
import { agentHealth } from "../../services/agents/agent-health.ts";
import type { ServiceContext } from "../../services/context.ts";
import type { Router } from "../router.ts";
import { healthSchema, projectIdParam2 } from "./schema.ts";

const route = createRoute({
  method: "get",
  path: "/agents/{project_id}/health",
  tags: ["Edge agents"],
  summary: "The project's agent health",
  description:
    "online: a heartbeat within 45 s and every device reading; degraded: a heartbeat, but a device failing or a backlog older than 5 minutes; offline: otherwise, or after the agent's last will. 404 when the project has no agent yet.",
  security: bearer,
  request: { params: projectIdParam2 },
  responses: { 200: json(healthSchema, "Agent health"), ...errorResponses(400, 401, 403, 404) },
});

export function mountHealth(router: Router, ctx: ServiceContext): void {
  router.openapi({ ...route, middleware: guard(ctx, "config:read") }, async (c) =>
    c.json(await agentHealth(ctx, c.get("auth"), c.req.valid("param").project_id), 200),
  );
}
