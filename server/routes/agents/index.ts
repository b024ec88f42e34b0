import type { ServiceContext } from "../../services/context.ts";
import { newRouter, type Router } from "../router.ts";
import { mountAgentToken } from "./agent-token.ts";
import { mountDeploy } from "./deploy.ts";
import { mountEnroll } from "./enroll.ts";
import { mountEnrollmentCodes } from "./enrollment-codes.ts";
import { mountHealth } from "./health.ts";
import { mountLogs } from "./logs.ts";

export type AgentRouteDeps = {
  /** The port the embedded broker is bound to, handed to enrolling agents. */
  mqttPort: () => number;
};

/** /api/edge: agent tokens, enrollment, deployments, agent logs and health. */
export function agentRoutes(ctx: ServiceContext, deps: AgentRouteDeps): Router {
  const router = newRouter();
  mountAgentToken(router, ctx);
  mountEnrollmentCodes(router, ctx);
  mountEnroll(router, ctx, deps.mqttPort);
  mountDeploy(router, ctx);
  mountLogs(router, ctx);
  mountHealth(router, ctx);
  return router;
}
