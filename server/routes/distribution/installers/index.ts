import type { ServiceContext } from "../../../services/context.ts";
import type { AgentArtifacts } from "../../../services/distribution/agent-artifacts.ts";
import { newRouter, type Router } from "../../router.ts";
import { mountGetBuild } from "./get-build.ts";
import { mountGetInstaller } from "./get-installer.ts";
import { mountQueueBuild } from "./queue-build.ts";

/** /api/edge: the project's Windows MSI and its build queue (issue 10 §3). */
export function installerRoutes(ctx: ServiceContext, artifacts: AgentArtifacts): Router {
  const router = newRouter();
  mountGetInstaller(router, ctx, artifacts);
  mountQueueBuild(router, ctx, artifacts);
  mountGetBuild(router, ctx);
  return router;
}
