import type { ServiceContext } from "../../services/context.ts";
import type { AgentArtifacts } from "../../services/distribution/agent-artifacts.ts";
import { newRouter, type Router } from "../router.ts";
import { mountInstallerAddress } from "./installer-address.ts";
import { mountLinuxBinary } from "./linux-binary.ts";
import { mountLinuxInstall } from "./linux-install.ts";
import { ENROLLMENT_CODE_SCHEME } from "./schema.ts";

/** /api/edge: what installs an agent (the Linux binary and install script). */
export function distributionRoutes(ctx: ServiceContext, artifacts: AgentArtifacts): Router {
  const router = newRouter();
  router.openAPIRegistry.registerComponent("securitySchemes", ENROLLMENT_CODE_SCHEME, {
    type: "http",
    scheme: "bearer",
    description: "An enrollment code (`cen_…`), as an install script carries it",
  });
  mountLinuxBinary(router, ctx, artifacts);
  mountLinuxInstall(router, ctx, artifacts);
  mountInstallerAddress(router, ctx);
  return router;
}
