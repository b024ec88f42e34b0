import { z } from "@hono/zod-openapi";
import { LINUX_ARCHES } from "../../../shared/distribution/linux-arch.ts";

export const DISTRIBUTION_TAG = "Agent distribution";

export const archParams = z.object({
  arch: z
    .enum(LINUX_ARCHES, { error: "must be x86_64 or aarch64" })
    .openapi({ param: { name: "arch", in: "path" }, example: "x86_64" }),
});

export const binaryBody = z.string().openapi({ type: "string", format: "binary" });

export const installScriptBody = z.string().openapi({
  description:
    "A POSIX sh script; run it as root: `sudo sh caudal-agent-install.sh` (`--help` lists its options)",
  example: "#!/bin/sh\n# Installs the Caudal agent as a systemd service…",
});

const header = (description: string) => ({ description, schema: { type: "string" as const } });

/** The headers of a binary download, on 200, 206 and HEAD alike. */
export const binaryHeaders = {
  "Content-Length": header("the bytes in this response"),
  ETag: header("the SHA-256 of the whole file, hex, quoted: If-None-Match and If-Range take it"),
  "Repr-Digest": header("RFC 9530: `sha-256=:<base64>:` of the whole file, also on a 206"),
  "Content-Disposition": header('attachment; filename="caudal-agent-<version>-linux-<arch>"'),
  "Accept-Ranges": header("bytes"),
};

export const retryAfterHeader = {
  "Retry-After": header("seconds to wait before asking again: only while the server builds the executables"),
};

/** An install script's enrollment code, sent as a bearer token (registered in distributionRoutes). */
export const ENROLLMENT_CODE_SCHEME = "enrollmentCode";
export const enrollmentCodeSecurity = [{ [ENROLLMENT_CODE_SCHEME]: [] }];
