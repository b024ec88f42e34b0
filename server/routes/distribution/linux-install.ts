import { createRoute } from "@hono/zod-openapi";
import { guard } from "../../http/guard.ts";
import { bearer, errorResponses } from "../../http/openapi.ts";
import type { ServiceContext } from "../../services/context.ts";
import type { AgentArtifacts } from "../../services/distribution/agent-artifacts.ts";
import { linuxInstallScript } from "../../services/distribution/linux-install-script.ts";
import { projectIdParams } from "../agents/schema.ts";
import type { Router } from "../router.ts";
import { installerRequest } from "./installer-request.ts";
import { DISTRIBUTION_TAG, installScriptBody, retryAfterHeader } from "./schema.ts";

const errors = errorResponses(400, 401, 403, 404, 409, 503);

const route = createRoute({
  method: "get",
  path: "/projects/{id}/linux-install",
  tags: [DISTRIBUTION_TAG],
  summary: "The project's Linux install script",
  description:
    "A POSIX sh script that installs the agent as a systemd service on an x86_64 or aarch64 machine: " +
    "it downloads GET /api/edge/agent/linux-binary/{arch}, checks its SHA-256, installs it in " +
    "/opt/caudal-agent with its configuration in /etc/caudal-agent/agent.json, and starts " +
    "caudal-agent.service. It carries the server URL (PUBLIC_URL, or the URL this request came in " +
    "on), the project id and a fresh one-time enrollment code in `CAUDAL_ENROLLMENT_CODE` (each " +
    "download issues one, valid 7 days, listed and revocable under enrollment-codes). Re-running it " +
    "upgrades in place and keeps an enrolled agent's enrollment; `--uninstall`, `--purge`, " +
    "`--dry-run` and `--root DIR` are described in its header. 503 `AgentBuilding` with Retry-After " +
    "while the server builds the Linux executables; 503 `AgentNotBuilt` without it when none is " +
    "built or being built, its message saying what to do.",
  security: bearer,
  request: { params: projectIdParams },
  responses: {
    200: {
      description: "The install script",
      headers: {
        "Content-Disposition": {
          description: 'attachment; filename="caudal-agent-install.sh"',
          schema: { type: "string" },
        },
      },
      content: { "text/x-shellscript": { schema: installScriptBody } },
    },
    ...errors,
    503: { ...errors[503], headers: retryAfterHeader },
  },
});

export function mountLinuxInstall(router: Router, ctx: ServiceContext, artifacts: AgentArtifacts): void {
  router.openapi({ ...route, middleware: guard(ctx, "config:write") }, async (c) => {
    const script = await linuxInstallScript(
      ctx,
      c.get("auth"),
      artifacts,
      c.req.valid("param").id,
      installerRequest(c),
    );
    return c.body(script, 200, {
      "Content-Type": "text/x-shellscript; charset=utf-8",
      "Content-Disposition": 'attachment; filename="caudal-agent-install.sh"',
    });
  });
}
