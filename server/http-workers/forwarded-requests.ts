import type { ReadableStreamReadResult } from "node:stream/web";
import type { HttpBindings } from "@hono/node-server";
import { exactCopy, type FromWorker, joined, type Peer, type ToWorker } from "./protocol.ts";

type Send = (message: ToWorker, transfer?: ArrayBuffer[]) => void;
type Fetch = (request: Request, env: HttpBindings) => Response | Promise<Response>;
type Part = Extract<FromWorker, { t: "forward" | "chunk" | "done" | "pull" | "abort" }>;

type Open = {
  /** The request body's next chunk is awaited (a pull is outstanding). */
  onBody?: ((chunk: Uint8Array | null) => void) | undefined;
  reader?: ReadableStreamDefaultReader<Uint8Array> | undefined;
  /** A read of the answer's body started before the worker asked for it. */
  pending?: Read | undefined;
  aborted: boolean;
};

/**
 * What the app's routes read of the connection (the client's address, for rate limits and
 * sessions): the relayed socket's peer. The app sees no socket of its own for these requests.
 */
function bindingsOf(peer: Peer): HttpBindings {
  const incoming = {
    socket: {
      remoteAddress: peer.remoteAddress,
      remotePort: peer.remotePort,
      remoteFamily: peer.remoteFamily,
    },
  };
  return { incoming } as unknown as HttpBindings;
}

const NO_BODY = new Set(["GET", "HEAD"]);

type Read = Promise<ReadableStreamReadResult<Uint8Array>>;

/** The read's result if it is already there, else `undefined` (the read stays pending). */
function readNow(read: Read): Promise<ReadableStreamReadResult<Uint8Array> | undefined> {
  return Promise.race([read, Promise.resolve().then(() => undefined)]);
}

/**
 * The body's first chunk and those right behind it, and the read still pending if more may
 * follow (`pending` undefined: the body is complete).
 */
async function startOf(
  reader: ReadableStreamDefaultReader<Uint8Array>,
): Promise<{ chunks: Uint8Array[]; pending: Read | undefined }> {
  const chunks: Uint8Array[] = [];
  let read: Read = reader.read();
  let next: ReadableStreamReadResult<Uint8Array> | undefined = await read;
  for (;;) {
    if (!next) return { chunks, pending: read };
    if (next.done) return { chunks, pending: undefined };
    chunks.push(next.value);
    read = reader.read();
    if (chunks.length >= 4) return { chunks, pending: read };
    next = await readNow(read);
  }
}

/**
 * On the main thread: answers the requests HTTP workers forward (any route but ingest, sent on a
 * connection a worker holds) with the main app, streaming both bodies on demand.
 */
export class ForwardedRequests {
  readonly #fetch: Fetch;
  readonly #send: Send;
  readonly #open = new Map<number, Open>();

  constructor(fetch: Fetch, send: Send) {
    this.#fetch = fetch;
    this.#send = send;
  }

  /** Every forwarded request of a worker that exited is abandoned. */
  clear(): void {
    for (const entry of this.#open.values()) {
      entry.aborted = true;
      entry.onBody?.(null);
      void entry.reader?.cancel().catch(() => undefined);
    }
    this.#open.clear();
  }

  receive(message: Part): void {
    if (message.t === "forward") {
      void this.#start(message);
      return;
    }
    const entry = this.#open.get(message.id);
    if (!entry) return;
    switch (message.t) {
      case "chunk":
      case "done": {
        const deliver = entry.onBody;
        entry.onBody = undefined;
        deliver?.(message.t === "chunk" ? message.d : null);
        return;
      }
      case "pull":
        void this.#pump(message.id, entry);
        return;
      case "abort":
        entry.aborted = true;
        this.#open.delete(message.id);
        entry.onBody?.(null);
        void entry.reader?.cancel().catch(() => undefined);
        return;
    }
  }

  async #start(message: Extract<Part, { t: "forward" }>): Promise<void> {
    const { id } = message;
    const entry: Open = { aborted: false };
    this.#open.set(id, entry);
    let response: Response;
    try {
      const headers = new Headers(message.headers);
      const body = NO_BODY.has(message.method)
        ? null
        : new ReadableStream<Uint8Array>({
            pull: (controller) =>
              new Promise<void>((resolve) => {
                entry.onBody = (chunk) => {
                  if (chunk) controller.enqueue(chunk);
                  else controller.close();
                  resolve();
                };
                this.#send({ t: "pull", id });
              }),
          });
      const url = new URL(message.url, `http://${headers.get("host") ?? "localhost"}`);
      // `duplex` is Node's (undici's) RequestInit; the DOM's, which the console's type check uses, lacks it.
      const init: RequestInit & { duplex: "half" } = {
        method: message.method,
        headers,
        body,
        duplex: "half",
      };
      const request = new Request(url, init);
      response = await this.#fetch(request, bindingsOf(message.peer));
    } catch {
      // What node-server answers a request it cannot make sense of.
      response = new Response(null, { status: 400 });
    }
    if (entry.aborted) {
      await response.body?.cancel().catch(() => undefined);
      return;
    }
    const headers: [string, string][] = [];
    response.headers.forEach((value, name) => {
      headers.push([name, value]);
    });
    const reader = response.body?.getReader();
    // As node-server does: a body complete at once gets a Content-Length, not chunked framing.
    const start = reader ? await startOf(reader) : { chunks: [], pending: undefined };
    if (entry.aborted) {
      await reader?.cancel().catch(() => undefined);
      return;
    }
    const d = start.chunks.length > 0 ? joined(start.chunks) : undefined;
    const more = start.pending !== undefined;
    if (!more && reader && !response.headers.has("content-length"))
      headers.push(["content-length", String(d?.byteLength ?? 0)]);
    if (more) {
      entry.reader = reader;
      entry.pending = start.pending;
    } else this.#open.delete(id);
    this.#send(
      { t: "response", id, status: response.status, headers, ...(d ? { d } : {}), more },
      d ? [d.buffer as ArrayBuffer] : [],
    );
  }

  async #pump(id: number, entry: Open): Promise<void> {
    const reader = entry.reader;
    if (!reader) return;
    const read = entry.pending ?? reader.read();
    entry.pending = undefined;
    try {
      const next = await read;
      if (entry.aborted) return;
      if (next.done) {
        this.#open.delete(id);
        this.#send({ t: "done", id });
        return;
      }
      const d = exactCopy(next.value);
      this.#send({ t: "chunk", id, d }, [d.buffer as ArrayBuffer]);
    } catch (err) {
      this.#open.delete(id);
      this.#send({ t: "done", id, error: err instanceof Error ? err.message : String(err) });
    }
  }
}
