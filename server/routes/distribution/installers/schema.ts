import { z } from "@hono/zod-openapi";

export const INSTALLERS_TAG = "Edge agents";

/** Seconds a client waits before asking again for a queued or running build (an MSI takes ~10 s). */
export const BUILD_RETRY_AFTER_S = 10;

export const buildIdParams = z.object({
  id: z.uuid("id must be a UUID").openapi({ param: { name: "id", in: "path" } }),
  build_id: z.uuid("build_id must be a UUID").openapi({ param: { name: "build_id", in: "path" } }),
});

const buildStatus = z.enum(["queued", "running", "succeeded", "failed"]).openapi({
  description: "queued → running → succeeded or failed",
});

export const buildQueuedSchema = z
  .object({
    build_id: z.uuid(),
    status: buildStatus,
  })
  .openapi("InstallerBuildQueued", {
    description:
      "The project's build: the one just queued, the one already queued or running (only one at a time per project), or a cached one that succeeded",
  });

export const installerBuildSchema = z
  .object({
    id: z.uuid(),
    project_id: z.uuid(),
    status: buildStatus,
    rebuild: z.boolean().openapi({ description: "Requested through …/rebuild: the cache was not consulted" }),
    server_url: z.string().openapi({
      description: "Where the installed agent enrolls: PUBLIC_URL, or the URL the request came in on",
      example: "https://caudal.example.com",
    }),
    agent_version: z.string().nullable(),
    enrollment_code_id: z.uuid().nullable().openapi({
      description:
        "The one-time code this MSI carries; revoke it at DELETE …/enrollment-codes/{code_id} to stop the MSI from enrolling",
    }),
    installer: z.object({ bytes: z.number().int(), sha256: z.string() }).nullable().openapi({
      description: "The MSI while it is kept; null before success and once a newer build replaced it",
    }),
    log: z.string().openapi({ description: "One timestamped line per step, wixl's output included" }),
    created_at: z.iso.datetime(),
    started_at: z.iso.datetime().nullable(),
    finished_at: z.iso.datetime().nullable(),
  })
  .openapi("InstallerBuild");

export const retryAfterHeader = {
  "Retry-After": {
    schema: { type: "integer" as const },
    description: "Seconds to wait before asking again",
  },
};
