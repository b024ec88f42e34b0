import { z } from "@hono/zod-openapi";

export const streamQuery = z.object({
  token: z.string().openapi({
    param: { name: "token", in: "query" },
    description: "Access token (JWT) from POST /api/auth/login or /api/auth/refresh",
    example: "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9…",
  }),
  project_id: z
    .uuid({ error: "project_id must be a UUID" })
    .optional()
    .openapi({
      param: { name: "project_id", in: "query" },
      description: "Only this project's events; it must be one of the caller's projects (404 otherwise)",
      example: "3f1c2a9e-8d4b-4c1e-9a57-2b6f0c8e1d23",
    }),
});

export const STREAM_DESCRIPTION = [
  "Opens the live stream over WebSocket (RFC 6455). Send a WebSocket handshake with the access token " +
    "as query parameter `token`; refusals are plain HTTP responses with an `{error, message}` body.",
  "",
  "Events are those of the projects the caller may see (superadmin and admin: every project; other " +
    "roles: their assigned projects, re-read while connected). `project_id` narrows the stream to one " +
    "project. Each WebSocket text message is one JSON object:",
  "",
  '- `{"type":"telemetry","project_id","asset_id","timestamp","readings":[{"variable","value","unit"}]}` ' +
    "after a telemetry payload is stored;",
  '- `{"type":"alarm","event":"raised"|"cleared"|"acknowledged","alarm":{AlarmEvent}}` on each alarm transition;',
  '- `{"type":"dropped","count":N}` when the client read too slowly and its N oldest pending events were ' +
    "discarded (the server keeps a bounded queue per client).",
  "",
  "The server pings every 30 s and drops clients that miss a pong. Close codes: `4401` the access token " +
    "expired or the session ended (refresh and reconnect); `4403` the `project_id` is no longer one of the " +
    "caller's projects, or the role no longer reads telemetry; `1001` the server is shutting down.",
].join("\n");
