import { IncomingMessage, STATUS_CODES } from "node:http";
import type { Http2Bindings, HttpBindings } from "@hono/node-server";

type Fetch = (request: Request, env: HttpBindings | Http2Bindings) => unknown;

/** Hop-by-hop and framing headers we set ourselves on a refusal. */
const SKIP = new Set(["connection", "content-length", "keep-alive", "transfer-encoding", "upgrade"]);

/**
 * Wraps the app's fetch for @hono/node-server's WebSocket support. node-server answers a refused
 * upgrade (any route that did not call upgradeWebSocket: 401, 400, 404…) with the status and headers
 * but an EMPTY body; our error contract is `{error, message}` on every refusal (spec §7.1), so we
 * write the whole response on the socket ourselves and destroy it, which tells node-server the
 * request is answered. Accepted upgrades (upgradeWebSocket's empty placeholder 200) pass through.
 *
 * Adding a WebSocket endpoint (e.g. MQTT over WebSocket at /mqtt): mount a Hono route whose
 * handler authenticates, then returns `upgradeWebSocket(c, { onOpen(_e, ws) { … ws.raw … } })`.
 * Refusals need nothing special: throw AppError as in any route.
 */
export function withUpgradeRefusals<F extends Fetch>(fetch: F): Fetch {
  return async (request, env) => {
    const response = await fetch(request, env);
    // Upgrade requests come with no ServerResponse: node-server owns the raw socket.
    const outgoing: unknown = env.outgoing;
    if (outgoing !== undefined || !(env.incoming instanceof IncomingMessage)) return response;
    // upgradeWebSocket accepts with an empty 200; anything else is the route's real answer.
    if (!(response instanceof Response) || (response.status < 300 && response.body === null)) return response;
    await writeRefusal(env.incoming, response);
    return response;
  };
}

async function writeRefusal(incoming: IncomingMessage, response: Response): Promise<void> {
  const socket = incoming.socket;
  const body = Buffer.from(await response.arrayBuffer());
  if (socket.destroyed) return;
  const lines = [
    `HTTP/1.1 ${response.status} ${STATUS_CODES[response.status] ?? ""}`,
    "Connection: close",
    `Content-Length: ${body.length}`,
  ];
  response.headers.forEach((value, key) => {
    if (!SKIP.has(key)) lines.push(`${key}: ${value}`);
  });
  const head = Buffer.from(`${lines.join("\r\n")}\r\n\r\n`, "latin1");
  await new Promise<void>((resolve) => {
    // Resolves once the bytes are handed to the kernel, or the peer is already gone.
    socket.once("close", () => resolve());
    socket.end(Buffer.concat([head, body]), () => resolve());
  });
  socket.destroy();
}
