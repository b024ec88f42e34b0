import { createRoute } from "@hono/zod-openapi";
import { guard } from "../../http/guard.ts";
import { bearer, errorResponses, json } from "../../http/openapi.ts";
import { agentMqttUsername, issueAgentToken } from "../../services/agents/agent-token.ts";
import type { ServiceContext } from "../../services/context.ts";
import type { Router } from "../router.ts";
import { agentTokenResponse, projectIdParams } from "./schema.ts";

const route = createRoute({
  method: "post",
  path: "/projects/{id}/agent-token",
  tags: ["Edge agents"],
  summary: "Issue (or rotate) the project's agent token",
  description:
    "The agent connects to MQTT as `agent:<project_id>` with this token. Issuing a new one revokes the old one and disconnects an agent using it.",
  security: bearer,
  request: { params: projectIdParams },
  responses: {
    201: json(agentTokenResponse, "The new token, shown once"),
    ...errorResponses(400, 401, 403, 404),
  },
});

export function mountAgentToken(router: Router, ctx: ServiceContext): void {
  router.openapi({ ...route, middleware: guard(ctx, "config:write") }, async (c) => {
    const { id } = c.req.valid("param");
    const token = await issueAgentToken(ctx, c.get("auth"), id);
    return c.json({ agent_token: token, mqtt_username: agentMqttUsername(id) }, 201);
  });
}
