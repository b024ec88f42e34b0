import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { parentPort, workerData } from "node:worker_threads";
import { getRequestListener } from "@hono/node-server";
import { Registry } from "prom-client";
import type { ServerConfig } from "../config.ts";
import { newApiApp } from "../http/api-app.ts";
import { telemetryIngestRoutes } from "../routes/telemetry/index.ts";
import { type ServiceContext, sharedOffsetClock } from "../services/context.ts";
import { EventBus } from "../services/events.ts";
import type { StoreLocation } from "../store/location.ts";
import { openStore } from "../store/open-store.ts";
import { RequestForwarder } from "./forward-request.ts";
import { isIngestRequest } from "./ingest-routes.ts";
import type { FromWorker, Peer, ToWorker } from "./protocol.ts";
import { RelayedSocket } from "./relayed-socket.ts";
import { RemoteIngest } from "./remote-ingest.ts";
import { workerLogger } from "./worker-logger.ts";

/** What the main thread gives a worker thread at start. */
export type WorkerInit = {
  config: ServerConfig;
  /** The server's database, read here (sessions and users for authentication). */
  location: StoreLocation;
  jwtKey: Uint8Array;
  totpKey: Uint8Array;
  clockOffsetMs: BigInt64Array | undefined;
};

const port = parentPort;
if (!port) throw new Error("worker-thread.ts runs as a worker thread (see pool.ts)");
const init = workerData as WorkerInit;
const send = (message: FromWorker, transfer?: ArrayBuffer[]) => port.postMessage(message, transfer);

const { config } = init;
// SQLite: the file read-only (readers never block the writer in WAL mode, and every statement
// sees the latest commit, so a revoked session or a disabled user is refused here as at once as on
// the main thread). PostgreSQL: a small pool of this thread's own.
const opened = await openStore(init.location, {
  role: "reader",
  poolSize: Math.max(2, Math.floor(config.DATABASE_POOL_SIZE / 4)),
  onIdleError: () => {},
});
const ctx: ServiceContext = {
  store: opened.store,
  config,
  logger: workerLogger(config.LOG_LEVEL, "server", send),
  clock: sharedOffsetClock(init.clockOffsetMs),
  keys: { jwt: init.jwtKey, totp: Buffer.from(init.totpKey) },
  events: new EventBus(),
  // The HTTP metrics of this thread; GET /metrics on the main thread adds them in.
  metrics: new Registry(),
};

const ingest = new RemoteIngest(send);
const app = newApiApp(ctx, workerLogger(config.LOG_LEVEL, "request", send));
app.route("/api/telemetry", telemetryIngestRoutes(ctx, ingest.write, ingest.writeColumns));
const answer = getRequestListener(app.fetch);
const forwarder = new RequestForwarder(send);

const peerOf = (socket: RelayedSocket): Peer => ({
  remoteAddress: socket.remoteAddress,
  remotePort: socket.remotePort,
  remoteFamily: socket.remoteFamily,
  localAddress: socket.localAddress,
  localPort: socket.localPort,
});

const http = createServer((req: IncomingMessage, res: ServerResponse) => {
  if (isIngestRequest(req.method, req.url)) {
    void answer(req, res);
    return;
  }
  if (req.socket instanceof RelayedSocket) forwarder.forward(req, res, peerOf(req.socket));
  else res.destroy();
});

/** The raw bytes of a request head, as they would have come from the client (RFC 9112 §2.1). */
function rawHead(req: IncomingMessage): Buffer {
  const lines = [`${req.method} ${req.url} HTTP/${req.httpVersion}`];
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2)
    lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
  return Buffer.from(`${lines.join("\r\n")}\r\n\r\n`, "latin1");
}

// A WebSocket upgrade belongs to the main thread (the live stream, MQTT over WebSocket): it takes
// the connection back, from the upgrade request on.
http.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
  if (!(socket instanceof RelayedSocket)) {
    socket.destroy();
    return;
  }
  // Bytes behind the head that the HTTP server had not taken yet go back too.
  const parts = [rawHead(req), head];
  for (let more: unknown = socket.read(); more instanceof Buffer; more = socket.read()) parts.push(more);
  const bytes = Buffer.concat(parts);
  const d = new Uint8Array(bytes);
  send({ t: "handback", c: socket.id, head: d, received: socket.received }, [d.buffer as ArrayBuffer]);
  connections.delete(socket.id);
  socket.forget();
});

const connections = new Map<number, RelayedSocket>();

function stop(): void {
  for (const socket of connections.values()) socket.forget();
  connections.clear();
  http.close();
  // The port closes last: the thread ends with it.
  void opened.close().finally(() => port?.close());
}

port.on("message", (message: ToWorker) => {
  switch (message.t) {
    case "open": {
      const socket = new RelayedSocket(message.c, message.peer, send);
      connections.set(message.c, socket);
      socket.once("close", () => connections.delete(message.c));
      http.emit("connection", socket);
      return;
    }
    case "data":
      connections.get(message.c)?.deliver(message.d);
      return;
    case "end":
      connections.get(message.c)?.deliverEnd();
      return;
    case "gone":
      connections.get(message.c)?.forget();
      return;
    case "wait":
    case "go":
      connections.get(message.c)?.congested(message.t === "wait");
      return;
    case "written":
    case "refused":
    case "failed":
      ingest.settle(message);
      return;
    case "response":
    case "chunk":
    case "done":
    case "pull":
      forwarder.answer(message);
      return;
    case "metrics":
      void ctx.metrics.getMetricsAsJSON().then((json) => send({ t: "metrics", id: message.id, json }));
      return;
    case "stop":
      stop();
      return;
  }
});

send({ t: "ready" });
