import { createRoute } from "@hono/zod-openapi";
import { fileDownload } from "../../http/file-download.ts";
import { bearer, errorResponses } from "../../http/openapi.ts";
import type { ServiceContext } from "../../services/context.ts";
import type { AgentArtifacts } from "../../services/distribution/agent-artifacts.ts";
import { openLinuxBinary } from "../../services/distribution/linux-binary.ts";
import type { Router } from "../router.ts";
import { agentDownloadAuth } from "./download-auth.ts";
import {
  archParams,
  binaryBody,
  binaryHeaders,
  DISTRIBUTION_TAG,
  enrollmentCodeSecurity,
  retryAfterHeader,
} from "./schema.ts";

const errors = errorResponses(400, 401, 403, 416, 503);

const route = createRoute({
  method: "get",
  path: "/agent/linux-binary/{arch}",
  tags: [DISTRIBUTION_TAG],
  summary: "Download the Linux agent executable",
  description:
    "The single executable `npm run build:agent` built for `arch` (`uname -m`: x86_64 or aarch64), " +
    "streamed from disk. Credentials: `Authorization: Bearer <enrollment code>` (what the install " +
    "script sends; an active or used code, not an expired or revoked one), or a user's access token " +
    "(supervisor and above). HEAD answers the headers alone. If-None-Match with the ETag gives 304; " +
    "one byte range (`Range: bytes=first-last`, `first-` or `-suffix`, with If-Range) gives 206, so " +
    "an interrupted download can resume (`curl -C -`); several ranges get the whole file. 503 " +
    "`AgentBuilding` with Retry-After while the server builds the missing executables (at start); 503 " +
    "`AgentNotBuilt` without it when none is built or being built, its message saying what to do.",
  security: [...bearer, ...enrollmentCodeSecurity],
  request: { params: archParams },
  responses: {
    200: {
      description: "The executable",
      headers: binaryHeaders,
      content: { "application/octet-stream": { schema: binaryBody } },
    },
    206: {
      description: "The requested byte range of the executable",
      headers: {
        ...binaryHeaders,
        "Content-Range": { description: "bytes first-last/size", schema: { type: "string" } },
      },
      content: { "application/octet-stream": { schema: binaryBody } },
    },
    304: { description: "Unchanged: If-None-Match named the current ETag" },
    ...errors,
    416: {
      ...errors[416],
      headers: { "Content-Range": { description: "bytes */size", schema: { type: "string" } } },
    },
    503: { ...errors[503], headers: retryAfterHeader },
  },
});

export function mountLinuxBinary(router: Router, ctx: ServiceContext, artifacts: AgentArtifacts): void {
  router.openapi({ ...route, middleware: agentDownloadAuth(ctx) }, async (c) =>
    fileDownload(c, await openLinuxBinary(artifacts, c.req.valid("param").arch)),
  );
}
