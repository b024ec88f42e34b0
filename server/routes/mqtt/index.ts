import { IncomingMessage } from "node:http";
import { upgradeWebSocket } from "@hono/node-server";
import { Hono } from "hono";
import { createWebSocketStream, WebSocket } from "ws";
import type { MqttBroker } from "../../broker/broker.ts";
import { AppError } from "../../errors.ts";
import type { AppEnv } from "../../http/env.ts";

/**
 * MQTT over WebSocket at /mqtt (MQTT 3.1.1 §6: binary frames, subprotocol "mqtt"). The MQTT
 * CONNECT authenticates, exactly as on the TCP port, so the upgrade itself needs no token.
 * A protocol endpoint, not a REST operation: it is not in the OpenAPI document.
 */
export function mqttWebSocketRoutes(broker: MqttBroker): Hono<AppEnv> {
  const router = new Hono<AppEnv>();
  router.get("/", (c) => {
    if (c.req.header("upgrade")?.toLowerCase() !== "websocket") {
      throw new AppError(
        "UpgradeRequired",
        "MQTT over WebSocket: connect with an MQTT client (subprotocol mqtt)",
      );
    }
    const env: unknown = c.env;
    const incoming = typeof env === "object" && env !== null && "incoming" in env ? env.incoming : undefined;
    if (!(incoming instanceof IncomingMessage))
      throw new Error("WebSocket upgrade outside a Node HTTP/1.1 server");
    return upgradeWebSocket(c, {
      onOpen(_event, wsContext) {
        const ws = wsContext.raw;
        if (!(ws instanceof WebSocket)) {
          wsContext.close(1011, "unsupported WebSocket implementation");
          return;
        }
        broker.handle(createWebSocketStream(ws), incoming);
      },
    });
  });
  return router;
}
