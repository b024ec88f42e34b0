import { z } from "@hono/zod-openapi";
import { agentBuildStatusSchema } from "../../../shared/distribution/agent-build-status.ts";

export const serviceStatus = z
  .object({
    status: z.enum(["ok", "error"]),
    latency_ms: z.number().int().nullable().openapi({
      description: "Milliseconds: the database probe query for `database`, the event-loop delay for `api`",
    }),
    message: z.string().nullable(),
  })
  .openapi("ServiceStatus");

export const healthResponse = z
  .object({
    status: z.enum(["ok", "degraded", "error"]).openapi({
      description:
        "error: the database cannot answer (HTTP 503). degraded: the database answered slower than " +
        "250 ms, or the MQTT broker is down. ok: otherwise.",
    }),
    version: z.string().openapi({ example: "1.0.0" }),
    timestamp: z.iso.datetime(),
    uptime_seconds: z.number().int().openapi({ description: "Seconds since the server process started" }),
    services: z.object({
      database: serviceStatus,
      api: serviceStatus,
      mqtt: serviceStatus.optional().openapi({ description: "Present when the embedded broker runs" }),
    }),
    agent_build: agentBuildStatusSchema.optional().openapi({
      description:
        "The agent executables the installers need (present on a running server): `building` while the server builds missing ones at start (its step and progress), `ready`, `failed`, or `unavailable` with what an administrator does",
    }),
  })
  .openapi("HealthResponse");
