import type { Server as HttpServer, IncomingMessage, ServerResponse } from "node:http";
import { type AddressInfo, createServer, type Server, type Socket } from "node:net";
import { firstRequestKind } from "./ingest-routes.ts";

/** Where ingest connections go: to a worker thread, or through `elsewhere` to the main thread. */
export type IngestConnections = { place(socket: Socket, head: Buffer, elsewhere: () => void): void };

/**
 * A connection that says nothing decisive for this long goes to the main thread's HTTP server,
 * whose own timeouts then apply (a client that opens connections ahead of use is served there).
 */
const SNIFF_WAIT_MS = 10_000;

/** Hands a connection, and the bytes already read from it, to a Node HTTP server as if fresh. */
export function serveOn(http: HttpServer, socket: Socket, head: Buffer): void {
  socket.pause();
  if (head.length > 0) socket.unshift(head);
  http.emit("connection", socket);
  socket.resume();
}

/**
 * The HTTP port when worker threads serve ingest. Every connection is accepted on the main
 * thread; its first request line decides where it goes: POST /api/telemetry(/batch) to a worker
 * thread (which then parses, authenticates and validates every request on it), anything else to
 * the main thread's own HTTP server, natively (WebSockets, downloads, the client's address).
 */
export class FrontDoor {
  readonly #http: HttpServer;
  readonly #workers: IngestConnections;
  readonly #sniffing = new Set<Socket>();
  /** Ingest connections the main thread answers while no worker serves: closed after an answer. */
  readonly #closeAfterAnswer = new WeakSet<Socket>();
  #server: Server | undefined;

  constructor(http: HttpServer, workers: IngestConnections) {
    this.#http = http;
    this.#workers = workers;
    // RFC 9112 §9.6: the client opens a new connection for its next request, which a worker can take.
    http.on("request", (req: IncomingMessage, res: ServerResponse) => {
      if (this.#closeAfterAnswer.has(req.socket)) res.setHeader("Connection", "close");
    });
  }

  get address(): AddressInfo | undefined {
    const address = this.#server?.address();
    return address && typeof address === "object" ? address : undefined;
  }

  listen(port: number, host: string): Promise<void> {
    const server = createServer((socket) => this.#accept(socket));
    this.#server = server;
    return new Promise((resolve, reject) => {
      server.once("error", reject);
      server.listen({ port, host }, () => {
        server.off("error", reject);
        resolve();
      });
    });
  }

  /**
   * Stops accepting; connections not yet placed are dropped. Placed ones are their owner's to
   * close (the HTTP server's, the workers').
   */
  close(): void {
    this.#server?.close();
    this.#server = undefined;
    for (const socket of this.#sniffing) socket.destroy();
    this.#sniffing.clear();
  }

  #accept(socket: Socket): void {
    this.#sniffing.add(socket);
    const chunks: Buffer[] = [];
    const place = (kind: "ingest" | "other") => {
      clearTimeout(timer);
      socket.off("data", onData);
      socket.off("end", onEnd);
      socket.off("close", onClose);
      this.#sniffing.delete(socket);
      const head = chunks.length === 1 && chunks[0] ? chunks[0] : Buffer.concat(chunks);
      socket.off("error", ignore);
      if (kind === "ingest") {
        this.#workers.place(socket, head, () => {
          this.#closeAfterAnswer.add(socket);
          serveOn(this.#http, socket, head);
        });
      } else serveOn(this.#http, socket, head);
    };
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      const kind = firstRequestKind(chunks.length === 1 ? chunk : Buffer.concat(chunks));
      if (kind !== "more") place(kind);
    };
    // Ended before a whole request line: nothing to answer.
    const onEnd = () => socket.destroy();
    const onClose = () => {
      clearTimeout(timer);
      this.#sniffing.delete(socket);
    };
    // A reset before the first request is no one's error.
    const ignore = () => undefined;
    const timer = setTimeout(() => place("other"), SNIFF_WAIT_MS);
    timer.unref();
    socket.on("data", onData);
    socket.once("end", onEnd);
    socket.once("close", onClose);
    socket.on("error", ignore);
  }
}
