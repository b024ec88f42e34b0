import { createRoute } from "@hono/zod-openapi";
import { errorContent, errorResponses, json, jsonBody } from "../../http/openapi.ts";
import { enrollAgent } from "../../services/agents/enrollment-codes.ts";
import { agentMqttUrl } from "../../services/agents/public-urls.ts";
import { RateLimiter } from "../../services/auth/rate-limit.ts";
import type { ServiceContext } from "../../services/context.ts";
import { clientInfo } from "../client-info.ts";
import { enforceAddressRateLimit } from "../rate-limit.ts";
import type { Router } from "../router.ts";
import { enrollBody, enrollmentSchema } from "./enrollment-schema.ts";

const ask = "ask a supervisor for a new enrollment code or installer";

const route = createRoute({
  method: "post",
  path: "/agents/enroll",
  tags: ["Edge agents"],
  summary: "Enroll an agent with a one-time code",
  description:
    "Public: the enrollment code is the credential. Trades an active code for a new agent token of its project (which replaces the project's previous token) and the broker to connect to. A code works once; attempts are limited per client address (ENROLL_RATE_LIMIT per minute).",
  request: jsonBody(enrollBody),
  responses: {
    200: json(enrollmentSchema, "Enrolled: keep the token, the code is spent"),
    ...errorResponses(400, 415, 429),
    401: {
      description:
        "The code is unknown (or of another project than `project_id`), already used, expired or revoked",
      content: errorContent(
        401,
        { error: "InvalidEnrollmentCode", message: "the enrollment code is not valid" },
        {
          error: "EnrollmentCodeUsed",
          message: `this enrollment code was already used at 2025-03-11T15:30:00.000Z: a code enrolls one agent once; ${ask}`,
        },
        {
          error: "EnrollmentCodeExpired",
          message: `this enrollment code expired at 2025-03-11T15:30:00.000Z; ${ask}`,
        },
        { error: "EnrollmentCodeRevoked", message: `this enrollment code was revoked; ${ask}` },
      ),
    },
  },
});

/** `mqttPort`: the port the broker is bound to (MQTT_PORT may be 0 in tests). */
export function mountEnroll(router: Router, ctx: ServiceContext, mqttPort: () => number): void {
  const limiter = new RateLimiter(ctx.config.ENROLL_RATE_LIMIT);
  router.openapi(route, async (c) => {
    const { ip } = clientInfo(c);
    enforceAddressRateLimit(limiter, ctx, ip);
    const { code, hostname, project_id } = c.req.valid("json");
    const enrolled = await enrollAgent(ctx, code, {
      ...(ip === undefined ? {} : { address: ip }),
      ...(hostname === undefined ? {} : { hostname }),
      ...(project_id === undefined ? {} : { projectId: project_id }),
    });
    return c.json({ ...enrolled, mqtt_url: agentMqttUrl(ctx.config, c.req.url, mqttPort()) }, 200);
  });
}
