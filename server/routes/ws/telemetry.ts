import { IncomingMessage } from "node:http";
import { upgradeWebSocket } from "@hono/node-server";
import { createRoute } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { WebSocket } from "ws";
import { AppError } from "../../errors.ts";
import type { AppEnv } from "../../http/env.ts";
import { errorContent, errorResponses } from "../../http/openapi.ts";
import { authorize } from "../../services/auth/auth-context.ts";
import { resolveAccessToken } from "../../services/auth/sessions.ts";
import type { ServiceContext } from "../../services/context.ts";
import { visibleProject } from "../../services/field/lookup.ts";
import type { LiveTelemetry } from "../../ws/live-telemetry.ts";
import type { Router } from "../router.ts";
import { STREAM_DESCRIPTION, streamQuery } from "./schema.ts";

const route = createRoute({
  method: "get",
  path: "/telemetry",
  tags: ["Telemetry"],
  summary: "Live telemetry and alarm stream (WebSocket upgrade)",
  description: STREAM_DESCRIPTION,
  security: [{ accessTokenQuery: [] }],
  request: { query: streamQuery },
  responses: {
    101: {
      description:
        "Switching Protocols: the WebSocket is open and carries one JSON message per event " +
        "(telemetry, alarm, dropped; see the operation description).",
    },
    ...errorResponses(400, 401, 403, 404),
    426: {
      description: "A plain HTTP request: this endpoint only answers a WebSocket upgrade (RFC 6455 §4.1)",
      content: errorContent(426),
    },
  },
});

const messages = {
  missing: "the access token is required as query parameter token",
  invalid: "the access token is invalid",
  expired: "the access token has expired; refresh it with POST /api/auth/refresh",
  revoked: "the session behind this access token has ended",
} as const;

/**
 * Spec §5.3: browsers cannot set headers on a WebSocket handshake, so the access token comes as
 * query parameter `token`. Runs before query validation: a bad token is a 401 whatever else is wrong.
 */
function queryTokenAuth(ctx: ServiceContext): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const token = c.req.query("token");
    if (!token) throw new AppError("Unauthorized", messages.missing);
    const resolved = await resolveAccessToken(ctx, token);
    if (!resolved.ok) {
      throw new AppError(
        resolved.reason === "expired" ? "TokenExpired" : "Unauthorized",
        messages[resolved.reason],
      );
    }
    c.set("auth", resolved.auth);
    await next();
  };
}

export function mountTelemetryStream(router: Router, ctx: ServiceContext, live: LiveTelemetry): void {
  router.openAPIRegistry.registerComponent("securitySchemes", "accessTokenQuery", {
    type: "apiKey",
    in: "query",
    name: "token",
    description:
      "The access token (JWT) of POST /api/auth/login, for WebSocket clients that cannot send headers",
  });
  router.use(route.path, queryTokenAuth(ctx));
  router.openapi(route, async (c) => {
    const auth = c.get("auth");
    authorize(auth, "telemetry:read");
    const projectFilter = c.req.valid("query").project_id ?? null;
    if (projectFilter !== null) await visibleProject(ctx.store.field, auth, projectFilter);
    if (c.req.header("upgrade")?.toLowerCase() !== "websocket") {
      throw new AppError("UpgradeRequired", "this endpoint only answers a WebSocket upgrade");
    }
    const env: unknown = c.env;
    const incoming = typeof env === "object" && env !== null && "incoming" in env ? env.incoming : undefined;
    if (!(incoming instanceof IncomingMessage))
      throw new Error("WebSocket upgrade outside a Node HTTP/1.1 server");
    const socket = incoming.socket;
    return upgradeWebSocket(c, {
      onOpen(_event, wsContext) {
        const ws = wsContext.raw;
        // node-server hands us the `ws` library's socket; anything else cannot be streamed to.
        if (!(ws instanceof WebSocket)) {
          wsContext.close(1011, "unsupported WebSocket implementation");
          return;
        }
        live.accept({
          ws,
          socket,
          userId: auth.userId,
          sessionId: auth.sessionId,
          expiresAtMs: auth.expiresAt * 1000,
          projectFilter,
          scope: { role: auth.role, projectIds: auth.projectIds },
        });
      },
    });
  });
}
