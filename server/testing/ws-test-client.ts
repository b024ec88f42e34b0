import type { IncomingHttpHeaders } from "node:http";
import type { Socket } from "node:net";
import { WebSocket } from "ws";

export type Refusal = { status: number; headers: IncomingHttpHeaders; body: unknown };
export type Opened = {
  ws: WebSocket;
  headers: IncomingHttpHeaders;
  socket: Socket;
  messages: StreamMessages;
};

/** Every JSON message a test client received, with a way to wait for one. */
export class StreamMessages {
  readonly all: Record<string, unknown>[] = [];
  #waiters: { match: (m: Record<string, unknown>) => boolean; resolve: () => void }[] = [];

  push(message: Record<string, unknown>): void {
    this.all.push(message);
    this.#waiters = this.#waiters.filter((w) => {
      if (!w.match(message)) return true;
      w.resolve();
      return false;
    });
  }

  /** Resolves when a message matching `match` has arrived (or already had). */
  waitFor(match: (m: Record<string, unknown>) => boolean, timeoutMs = 5000): Promise<void> {
    if (this.all.some(match)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("timed out waiting for a stream message")), timeoutMs);
      this.#waiters.push({
        match,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
  }
}

/**
 * Opens GET /api/ws/telemetry with the `ws` client: the open socket with the 101's headers, or the
 * refusal's status, headers and parsed body.
 */
export function openStream(
  baseUrl: string,
  query: Record<string, string>,
  options: { autoPong?: boolean; path?: string } = {},
): Promise<Opened | Refusal> {
  const url = new URL(options.path ?? "/api/ws/telemetry", baseUrl.replace(/^http/, "ws"));
  for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { autoPong: options.autoPong ?? true });
    const messages = new StreamMessages();
    let headers: IncomingHttpHeaders = {};
    let socket: Socket | undefined;
    ws.on("upgrade", (res) => {
      headers = res.headers;
      socket = res.socket;
    });
    ws.on("message", (data, isBinary) => {
      if (!isBinary) messages.push(JSON.parse(String(data)) as Record<string, unknown>);
    });
    ws.on("unexpected-response", (_req, res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: parseBody(text) });
        ws.terminate();
      });
    });
    ws.once("open", () => {
      if (!socket) reject(new Error("no upgrade response"));
      else resolve({ ws, headers, socket, messages });
    });
    ws.once("error", (err) => reject(err));
  });
}

export function isOpened(result: Opened | Refusal): result is Opened {
  return "ws" in result;
}

/** Opens a stream that must succeed. */
export async function mustOpen(
  baseUrl: string,
  query: Record<string, string>,
  options: { autoPong?: boolean } = {},
): Promise<Opened> {
  const result = await openStream(baseUrl, query, options);
  if (!isOpened(result)) throw new Error(`stream refused: ${result.status} ${JSON.stringify(result.body)}`);
  return result;
}

/** Resolves with the close code and reason once the server closes the socket. */
export function closed(ws: WebSocket, timeoutMs = 5000): Promise<{ code: number; reason: string }> {
  return new Promise((resolve, reject) => {
    if (ws.readyState === WebSocket.CLOSED) {
      reject(new Error("already closed"));
      return;
    }
    const timer = setTimeout(() => reject(new Error("timed out waiting for close")), timeoutMs);
    ws.once("close", (code, reason) => {
      clearTimeout(timer);
      resolve({ code, reason: reason.toString() });
    });
  });
}

function parseBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
