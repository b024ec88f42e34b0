import { createRoute } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../../../http/env.ts";
import { guard } from "../../../http/guard.ts";
import { bearer, errorResponses } from "../../../http/openapi.ts";
import { installerServerUrl } from "../../../services/agents/public-urls.ts";
import type { ServiceContext } from "../../../services/context.ts";
import type { AgentArtifacts } from "../../../services/distribution/agent-artifacts.ts";
import { requestInstallerBuild } from "../../../services/distribution/installer-builds/request-build.ts";
import { projectIdParam2, projectIdParams } from "../../agents/schema.ts";
import type { Router } from "../../router.ts";
import { installerRequest } from "../installer-request.ts";
import { BUILD_RETRY_AFTER_S, buildQueuedSchema, INSTALLERS_TAG, retryAfterHeader } from "./schema.ts";

/** 409: PUBLIC_URL unset and the request came from another machine as localhost (public-urls.ts). */
const refusals = errorResponses(400, 401, 403, 404, 409);

const queuedResponse = {
  description: "The build, queued or already there; poll GET …/builds/{build_id}",
  headers: retryAfterHeader,
  content: { "application/json": { schema: buildQueuedSchema } },
};

const buildRoute = createRoute({
  method: "post",
  path: "/projects/{project_id}/build",
  tags: [INSTALLERS_TAG],
  summary: "Queue a build of the project's Windows MSI",
  description:
    "Builds are cached by agent version and the hash of the project's installer inputs: when an MSI of the same inputs exists and its enrollment code is still good, that build is returned (status succeeded) and nothing is built. One build at a time per project: while one is queued or running, its id is returned and nothing starts. After a failed build, this queues a new one. Queuing is audited. 503 `AgentBuilding` with Retry-After while the server builds the Windows agent executable (at start).",
  security: bearer,
  request: { params: projectIdParam2 },
  responses: {
    202: queuedResponse,
    ...refusals,
    503: { ...errorResponses(503)[503], headers: retryAfterHeader },
  },
});

const rebuildRoute = createRoute({
  method: "post",
  path: "/projects/{id}/rebuild",
  tags: [INSTALLERS_TAG],
  summary: "Queue a build of the project's Windows MSI, ignoring the cache",
  description:
    "As POST …/build, but a new MSI (with a new enrollment code) is built even when a cached one would do. While a build is queued or running, its id is returned and nothing starts.",
  security: bearer,
  request: { params: projectIdParams },
  responses: {
    202: queuedResponse,
    ...refusals,
    503: { ...errorResponses(503)[503], headers: retryAfterHeader },
  },
});

export function mountQueueBuild(router: Router, ctx: ServiceContext, artifacts: AgentArtifacts): void {
  const queue = async (c: Context<AppEnv>, projectId: string, rebuild: boolean) => {
    const { build } = await requestInstallerBuild(ctx, artifacts, c.get("auth"), projectId, {
      serverUrl: installerServerUrl(ctx.config, installerRequest(c)),
      rebuild,
      retryFailed: true,
    });
    if (build.status !== "succeeded") c.header("Retry-After", String(BUILD_RETRY_AFTER_S));
    return { build_id: build.id, status: build.status };
  };
  router.openapi({ ...buildRoute, middleware: guard(ctx, "config:write") }, async (c) =>
    c.json(await queue(c, c.req.valid("param").project_id, false), 202),
  );
  router.openapi({ ...rebuildRoute, middleware: guard(ctx, "config:write") }, async (c) =>
    c.json(await queue(c, c.req.valid("param").id, true), 202),
  );
}
