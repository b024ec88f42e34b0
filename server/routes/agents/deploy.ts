import { createRoute, z } from "@hono/zod-openapi";
import { guard } from "../../http/guard.ts";
import { bearer, errorResponses, json } from "../../http/openapi.ts";
import { deployProject, listDeployments } from "../../services/agents/deploy.ts";
import type { ServiceContext } from "../../services/context.ts";
import type { Router } from "../router.ts";
import { deploymentSchema, projectIdParam2, projectIdParams } from "./schema.ts";

const deployRoute = createRoute({
  method: "post",
  path: "/projects/{id}/deploy",
  tags: ["Edge agents"],
  summary: "Deploy the project's configuration to its agent",
  description:
    "Builds the agent configuration (enabled devices and variables, enabled alert rules) with a version and a content hash, records a pending deployment and publishes it retained on `caudal/v1/{project_id}/config`. The agent reports applied or failed.",
  security: bearer,
  request: { params: projectIdParams },
  responses: {
    200: json(
      deploymentSchema,
      "Deployment started, or the newest deployment when the configuration has not changed since",
    ),
    ...errorResponses(400, 401, 403, 404),
  },
});

const listRoute = createRoute({
  method: "get",
  path: "/projects/{project_id}/deployments",
  tags: ["Edge agents"],
  summary: "Deployment history, newest first",
  security: bearer,
  request: { params: projectIdParam2 },
  responses: { 200: json(z.array(deploymentSchema), "Deployments"), ...errorResponses(400, 401, 403, 404) },
});

export function mountDeploy(router: Router, ctx: ServiceContext): void {
  router.openapi({ ...deployRoute, middleware: guard(ctx, "config:write") }, async (c) =>
    c.json(await deployProject(ctx, c.get("auth"), c.req.valid("param").id), 200),
  );
  router.openapi({ ...listRoute, middleware: guard(ctx, "config:read") }, async (c) =>
    c.json(await listDeployments(ctx, c.get("auth"), c.req.valid("param").project_id), 200),
  );
}
