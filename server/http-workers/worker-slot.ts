import type { Socket } from "node:net";
import { Worker } from "node:worker_threads";
import type { HttpBindings } from "@hono/node-server";
import { AppError } from "../errors.ts";
import { HttpError } from "../http/errors.ts";
import type { Logger } from "../logger.ts";
import { type ColumnsWriter, localColumnsWriter } from "../routes/telemetry/ingest-writer.ts";
import type { ServiceContext } from "../services/context.ts";
import type { TelemetryService } from "../services/telemetry/service.ts";
import { ConnectionRelay } from "./connection-relay.ts";
import { ForwardedRequests } from "./forwarded-requests.ts";
import type { FromWorker, ToWorker } from "./protocol.ts";
import type { WorkerInit } from "./worker-thread.ts";

export type HttpWorkersDeps = {
  ctx: ServiceContext;
  /** Runs the ingest the worker threads hand over. */
  telemetry: TelemetryService;
  /** How many worker threads. */
  count: number;
  /** The main thread's app, for requests a worker forwards (other routes on its connections). */
  fetch: (request: Request, env: HttpBindings) => Response | Promise<Response>;
  /** Gives a connection back to the main thread's HTTP server (a WebSocket upgrade on it). */
  serve: (socket: Socket, head: Buffer) => void;
  /** Where the workers' request log lines go. */
  requestLogger: Logger;
};

/** Restarts of a crashed worker wait this long, doubling while it keeps crashing, up to the max. */
const RESTART_DELAY_MS = 100;
const RESTART_DELAY_MAX_MS = 10_000;
/** A worker that ran this long before it crashed restarts at once. */
const STABLE_MS = 30_000;
/** How long GET /metrics waits for a worker's figures. */
const METRICS_WAIT_MS = 1_000;

const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** One worker thread and what the main thread holds for it. */
export class WorkerSlot {
  readonly #deps: HttpWorkersDeps;
  readonly #init: WorkerInit;
  readonly #relays = new Map<number, ConnectionRelay>();
  readonly #metrics = new Map<number, (json: unknown[]) => void>();
  /** The ingest service, as the main thread's own routes call it. */
  readonly #writer: ColumnsWriter;
  #worker: Worker | undefined;
  #forwarded: ForwardedRequests | undefined;
  #ready = false;
  #stopping = false;
  #startedAt = 0;
  #restartDelay = RESTART_DELAY_MS;
  #restartTimer: NodeJS.Timeout | undefined;
  #nextId = 1;

  constructor(deps: HttpWorkersDeps, init: WorkerInit) {
    this.#deps = deps;
    this.#init = init;
    this.#writer = localColumnsWriter(deps.ctx, deps.telemetry);
  }

  get ready(): boolean {
    return this.#ready;
  }

  /** The running thread's id; undefined while it is (re)starting. */
  get threadId(): number | undefined {
    return this.#ready ? this.#worker?.threadId : undefined;
  }

  /** Ends the thread as a crash would (it is restarted). */
  async terminate(): Promise<void> {
    await this.#worker?.terminate();
  }

  /** Starts the thread unless it runs or is about to restart. */
  start(): void {
    if (!this.#worker && !this.#restartTimer && !this.#stopping) this.#spawn();
  }

  take(socket: Socket, head: Buffer): void {
    const relay = new ConnectionRelay(this.#nextId++, socket, this.#post, (r) => this.#relays.delete(r.id));
    this.#relays.set(relay.id, relay);
    relay.start(head);
  }

  metricsJson(): Promise<unknown[]> {
    if (!this.#ready) return Promise.resolve([]);
    const id = this.#nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#metrics.delete(id);
        resolve([]);
      }, METRICS_WAIT_MS);
      this.#metrics.set(id, (json) => {
        clearTimeout(timer);
        resolve(json);
      });
      this.#post({ t: "metrics", id });
    });
  }

  async stop(): Promise<void> {
    this.#stopping = true;
    clearTimeout(this.#restartTimer);
    const worker = this.#worker;
    this.#dropConnections();
    if (!worker) return;
    const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
    worker.postMessage({ t: "stop" } satisfies ToWorker);
    const timer = setTimeout(() => void worker.terminate(), 5_000);
    await exited;
    clearTimeout(timer);
  }

  readonly #post = (message: ToWorker, transfer?: ArrayBuffer[]): void => {
    this.#worker?.postMessage(message, transfer);
  };

  #spawn(): void {
    this.#restartTimer = undefined;
    const worker = new Worker(new URL("./worker-entry.ts", import.meta.url), { workerData: this.#init });
    this.#worker = worker;
    this.#startedAt = Date.now();
    const forwarded = new ForwardedRequests(this.#deps.fetch, this.#post);
    this.#forwarded = forwarded;
    worker.on("message", (message: FromWorker) => this.#receive(message));
    worker.on("error", (err) => {
      this.#deps.ctx.logger.error("http worker failed", { thread: worker.threadId, error: err.message });
    });
    worker.once("exit", (code) => {
      this.#ready = false;
      this.#worker = undefined;
      forwarded.clear();
      this.#dropConnections();
      if (this.#stopping) return;
      this.#deps.ctx.logger.error("http worker exited; restarting it", { code });
      this.#restart();
    });
  }

  #restart(): void {
    const ranFor = Date.now() - this.#startedAt;
    const delay = ranFor >= STABLE_MS ? 0 : this.#restartDelay;
    this.#restartDelay = ranFor >= STABLE_MS ? RESTART_DELAY_MS : Math.min(delay * 2, RESTART_DELAY_MAX_MS);
    this.#restartTimer = setTimeout(() => {
      if (!this.#stopping) this.#spawn();
    }, delay);
    this.#restartTimer.unref();
  }

  /** The connections this worker held are closed: their unanswered requests were never acknowledged. */
  #dropConnections(): void {
    const relays = [...this.#relays.values()];
    this.#relays.clear();
    for (const relay of relays) relay.destroy();
  }

  #receive(message: FromWorker): void {
    switch (message.t) {
      case "ready":
        this.#ready = true;
        return;
      case "write":
        this.#write(message);
        return;
      case "data":
      case "end":
      case "destroy":
      case "pause":
      case "resume":
        this.#relays.get(message.c)?.receive(message);
        return;
      case "handback": {
        const socket = this.#relays.get(message.c)?.takeBack(message.received);
        if (socket) this.#deps.serve(socket, Buffer.from(message.head));
        return;
      }
      case "forward":
      case "chunk":
      case "done":
      case "pull":
      case "abort":
        this.#forwarded?.receive(message);
        return;
      case "metrics":
        this.#metrics.get(message.id)?.(message.json);
        this.#metrics.delete(message.id);
        return;
      case "log": {
        const logger = message.which === "request" ? this.#deps.requestLogger : this.#deps.ctx.logger;
        logger[message.level](message.msg, message.fields);
        return;
      }
    }
  }

  #write(message: Extract<FromWorker, { t: "write" }>): void {
    const { id } = message;
    this.#writer(message.auth, message.columns, message.shape).then(
      (result) => this.#post({ t: "written", id, result }),
      (err: unknown) => {
        if (err instanceof AppError) {
          this.#post({
            t: "refused",
            id,
            error: {
              code: err.code,
              message: err.message,
              extra: err.extra,
              retryAfterSeconds: err.retryAfterSeconds,
              headers: err instanceof HttpError ? err.headers : {},
            },
          });
          return;
        }
        this.#deps.ctx.logger.error("telemetry write from an http worker failed", { error: errorText(err) });
        this.#post({ t: "failed", id, message: errorText(err) });
      },
    );
  }
}
