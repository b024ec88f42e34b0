import { createReadStream } from "node:fs";
import { Readable } from "node:stream";
import { createRoute, z } from "@hono/zod-openapi";
import { guard } from "../../../http/guard.ts";
import { bearer, errorResponses } from "../../../http/openapi.ts";
import { installerServerUrl } from "../../../services/agents/public-urls.ts";
import type { ServiceContext } from "../../../services/context.ts";
import type { AgentArtifacts } from "../../../services/distribution/agent-artifacts.ts";
import { installerDownload } from "../../../services/distribution/installer-builds/installer-download.ts";
import { projectIdParams } from "../../agents/schema.ts";
import type { Router } from "../../router.ts";
import { installerRequest } from "../installer-request.ts";
import { BUILD_RETRY_AFTER_S, buildQueuedSchema, INSTALLERS_TAG, retryAfterHeader } from "./schema.ts";

const MSI_TYPE = "application/x-msi";

const route = createRoute({
  method: "get",
  path: "/projects/{id}/installer",
  tags: [INSTALLERS_TAG],
  summary: "The project's Windows installer (MSI)",
  description:
    "An MSI built with wixl for this project: the agent executable, its configuration (project id, server URL, and a one-time enrollment code of its own, valid 7 days), and the `caudal-agent` Windows service through WinSW (automatic start, restart on failure, logs in the install folder), stopped and removed on uninstall; a newer MSI replaces an installed one (MajorUpgrade).\n\n" +
    "When no MSI is built for the current agent and inputs, or the built one's enrollment code is used, expired, revoked or has less than a day left, a build is queued (or the one queued or running is named) and the answer is 202 with Retry-After: poll GET …/builds/{build_id}, then ask again. When the last build failed on the same inputs, the answer is 202 with that build (status failed, no Retry-After) until POST …/build or …/rebuild queues another: polling never starts failing builds. While the server builds the agent executables (at start) and the Windows one is not made yet, 503 `AgentBuilding` with Retry-After, and nothing is queued.",
  security: bearer,
  request: { params: projectIdParams },
  responses: {
    200: {
      description: "The MSI, streamed",
      headers: {
        "Content-Disposition": {
          schema: { type: "string" },
          description: 'attachment; filename="caudal-agent-<project>.msi"',
        },
        "Content-Length": { schema: { type: "integer" }, description: "The MSI's size in bytes" },
        ETag: { schema: { type: "string" }, description: "The MSI's SHA-256, quoted" },
      },
      content: { [MSI_TYPE]: { schema: z.string().openapi({ format: "binary" }) } },
    },
    202: {
      description: "Not built: the build is queued or running (Retry-After), or failed (see its log)",
      headers: retryAfterHeader,
      content: { "application/json": { schema: buildQueuedSchema } },
    },
    // 409: PUBLIC_URL unset and the request came from another machine as localhost (public-urls.ts).
    ...errorResponses(400, 401, 403, 404, 409),
    503: { ...errorResponses(503)[503], headers: retryAfterHeader },
  },
});

export function mountGetInstaller(router: Router, ctx: ServiceContext, artifacts: AgentArtifacts): void {
  router.openapi({ ...route, middleware: guard(ctx, "config:write") }, async (c) => {
    const serverUrl = installerServerUrl(ctx.config, installerRequest(c));
    const found = await installerDownload(ctx, artifacts, c.get("auth"), c.req.valid("param").id, serverUrl);
    if (found.kind === "pending") {
      if (found.build.status !== "failed") c.header("Retry-After", String(BUILD_RETRY_AFTER_S));
      return c.json({ build_id: found.build.id, status: found.build.status }, 202);
    }
    const body = Readable.toWeb(createReadStream("", { fd: found.fd })) as ReadableStream<Uint8Array>;
    return c.body(body, 200, {
      "Content-Type": MSI_TYPE,
      "Content-Length": String(found.bytes),
      "Content-Disposition": `attachment; filename="${found.filename}"`,
      ETag: `"${found.build.sha256}"`,
      // It carries an enrollment code: no shared cache may keep it.
      "Cache-Control": "private, no-store",
    });
  });
}
