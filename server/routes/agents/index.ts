import type { ServiceContext } from "../../services/context.ts";
import { newRouter, type Router } from "../router.ts";
import { mountAgentToken } from "./agent-token.ts";
import { mountDeploy } from "./deploy.ts";
import { mountHealth } from "./health.ts";
import { mountLogs } from "./logs.ts";

/** /api/edge: agent tokens, deployments, agent logs and health. */
export function agentRoutes(ctx: ServiceContext): Router {
  const router = newRouter();
  mountAgentToken(router, ctx);
  mountDeploy(router, ctx);
  mountLogs(router, ctx);
  mountHealth(router, ctx);
  return router;
}
