import type { IngestShape } from "../routes/telemetry/ingest-writer.ts";
import type { AuthContext } from "../services/auth/auth-context.ts";
import type { WriteResult } from "../store/ports/telemetry-store.ts";
import type { PayloadColumns } from "./payload-columns.ts";

/*
 * Messages between the main thread (the writer: the database, every route but ingest, the
 * WebSocket stream, the broker) and an HTTP worker thread. `c` names a relayed connection, `id`
 * a write call or a forwarded request. Byte chunks travel as exact-size Uint8Arrays, transferred.
 */

/** The client's side of a relayed connection, as a net.Socket reports it. */
export type Peer = {
  remoteAddress: string | undefined;
  remotePort: number | undefined;
  remoteFamily: string | undefined;
  localAddress: string | undefined;
  localPort: number | undefined;
};

/** An AppError as data: the worker rethrows it, so its one error handler answers it. */
export type RefusalData = {
  code: string;
  message: string;
  extra: Record<string, unknown>;
  retryAfterSeconds: number | undefined;
  /** An HttpError's own headers (Connection: close on a 413, say); empty for other errors. */
  headers: Record<string, string>;
};

export type ToWorker =
  /** A connection whose first request is an ingest request: its bytes follow as `data`. */
  | { t: "open"; c: number; peer: Peer }
  | { t: "data"; c: number; d: Uint8Array }
  /** The client ended its side. */
  | { t: "end"; c: number }
  /** The client's socket is gone (closed, reset, or taken back by the main thread). */
  | { t: "gone"; c: number }
  /** The client reads slowly: hold further writes until `go`. */
  | { t: "wait"; c: number }
  | { t: "go"; c: number }
  | { t: "written"; id: number; result: WriteResult }
  | { t: "refused"; id: number; error: RefusalData }
  | { t: "failed"; id: number; message: string }
  /**
   * The main thread's answer to a forwarded request: its head, the start of its body (`d`), and
   * whether more follows (chunks, one per `pull`).
   */
  | { t: "response"; id: number; status: number; headers: [string, string][]; d?: Uint8Array; more: boolean }
  | { t: "chunk"; id: number; d: Uint8Array }
  /** The answer's body is complete (or broke off, with `error`). */
  | { t: "done"; id: number; error?: string }
  /** The forwarded request's body is wanted: send its next chunk. */
  | { t: "pull"; id: number }
  | { t: "metrics"; id: number }
  | { t: "stop" };

export type FromWorker =
  | { t: "ready" }
  | { t: "data"; c: number; d: Uint8Array }
  /** The worker ended its side of the connection (after the last response). */
  | { t: "end"; c: number }
  | { t: "destroy"; c: number }
  /** Stop reading the client: the worker's HTTP server has enough buffered. */
  | { t: "pause"; c: number }
  | { t: "resume"; c: number }
  /**
   * A WebSocket upgrade arrived on a relayed connection: the main thread takes the connection
   * back and serves it from these bytes (the request head and what followed it). `received` is
   * how many bytes the worker had been sent, so nothing relayed since is lost unseen.
   */
  | { t: "handback"; c: number; head: Uint8Array; received: number }
  /** Validated payloads to store (the ingest service runs on the main thread); `written` or `refused` answers. */
  | { t: "write"; id: number; auth: AuthContext; columns: PayloadColumns; shape: IngestShape }
  /** A request for any other route on a relayed connection: the main thread's app answers it. */
  | { t: "forward"; id: number; method: string; url: string; headers: [string, string][]; peer: Peer }
  /** A chunk of the forwarded request's body, sent on `pull`. */
  | { t: "chunk"; id: number; d: Uint8Array }
  /** The forwarded request's body is complete. */
  | { t: "done"; id: number }
  /** The client took the last chunk of the answer: send the next. */
  | { t: "pull"; id: number }
  /** The client went away: stop answering. */
  | { t: "abort"; id: number }
  | { t: "metrics"; id: number; json: unknown[] }
  | {
      t: "log";
      which: "server" | "request";
      level: LogLevelName;
      msg: string;
      fields: Record<string, unknown>;
    };

export type LogLevelName = "debug" | "info" | "warn" | "error";

/** An exact-size copy, safe to transfer: a socket's chunk is often a view into a larger pooled buffer. */
export function exactCopy(chunk: Uint8Array): Uint8Array {
  return new Uint8Array(chunk);
}

/** One exact-size copy of `chunks`, in order, safe to transfer. */
export function joined(chunks: readonly Uint8Array[]): Uint8Array {
  if (chunks.length === 1 && chunks[0]) return exactCopy(chunks[0]);
  let size = 0;
  for (const c of chunks) size += c.byteLength;
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}
