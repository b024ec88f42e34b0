import type { IncomingMessage, ServerResponse } from "node:http";
import { exactCopy, type FromWorker, type Peer, type ToWorker } from "./protocol.ts";

type Send = (message: FromWorker, transfer?: ArrayBuffer[]) => void;
type Answer = Extract<ToWorker, { t: "response" | "chunk" | "done" | "pull" }>;

type Forwarded = { req: IncomingMessage; res: ServerResponse; finished: boolean };

/** [name, value] pairs of a request's raw headers, repeated names kept. */
function headerPairs(raw: readonly string[]): [string, string][] {
  const pairs: [string, string][] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) pairs.push([raw[i] ?? "", raw[i + 1] ?? ""]);
  return pairs;
}

/**
 * In a worker thread: requests for any route but ingest that arrive on a relayed connection
 * (a client may send a GET after its POSTs on the same keep-alive connection). The main thread's
 * app answers them; bodies flow one chunk at a time each way (`pull`), so neither thread buffers
 * more than a chunk of a slow peer's data.
 */
export class RequestForwarder {
  readonly #send: Send;
  readonly #open = new Map<number, Forwarded>();
  #next = 1;

  constructor(send: Send) {
    this.#send = send;
  }

  forward(req: IncomingMessage, res: ServerResponse, peer: Peer): void {
    const id = this.#next++;
    const entry: Forwarded = { req, res, finished: false };
    this.#open.set(id, entry);
    req.pause();
    req.on("data", (chunk: Buffer) => {
      req.pause();
      const d = exactCopy(chunk);
      this.#send({ t: "chunk", id, d }, [d.buffer as ArrayBuffer]);
    });
    req.once("end", () => this.#send({ t: "done", id }));
    res.once("close", () => {
      if (this.#open.delete(id) && !entry.finished) this.#send({ t: "abort", id });
    });
    this.#send({
      t: "forward",
      id,
      method: req.method ?? "GET",
      url: req.url ?? "/",
      headers: headerPairs(req.rawHeaders),
      peer,
    });
  }

  answer(message: Answer): void {
    const entry = this.#open.get(message.id);
    if (!entry) return;
    const { req, res } = entry;
    switch (message.t) {
      case "pull":
        req.resume();
        return;
      case "response": {
        res.writeHead(message.status, message.headers.flat());
        if (!message.more) {
          entry.finished = true;
          res.end(message.d);
          return;
        }
        if (!message.d || res.write(message.d)) this.#send({ t: "pull", id: message.id });
        else res.once("drain", () => this.#send({ t: "pull", id: message.id }));
        return;
      }
      case "chunk":
        if (res.write(message.d)) this.#send({ t: "pull", id: message.id });
        else res.once("drain", () => this.#send({ t: "pull", id: message.id }));
        return;
      case "done":
        entry.finished = true;
        if (message.error) res.destroy(new Error(message.error));
        else res.end();
        return;
    }
  }
}
