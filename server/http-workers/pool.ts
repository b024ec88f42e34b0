import type { Socket } from "node:net";
import { type HttpWorkersDeps, WorkerSlot } from "./worker-slot.ts";
import type { WorkerInit } from "./worker-thread.ts";

/**
 * HTTP worker threads (HTTP_WORKERS): each parses, authenticates and validates the ingest
 * requests of the connections it is given, and asks the main thread, which alone writes to the
 * database, to store them. They start with the first ingest connection, so a server that
 * receives none keeps their memory. A worker that exits is restarted; the connections it held
 * are closed, so a request it had not answered was never acknowledged (the client resends it; a
 * duplicate is ignored).
 */
export class HttpWorkers {
  readonly #slots: WorkerSlot[];
  #turn = 0;

  constructor(deps: HttpWorkersDeps, init: WorkerInit) {
    this.#slots = Array.from({ length: deps.count }, () => new WorkerSlot(deps, init));
  }

  /** Starts every thread that is not running (a no-op for those that are). */
  start(): void {
    for (const slot of this.#slots) slot.start();
  }

  async stop(): Promise<void> {
    await Promise.all(this.#slots.map((slot) => slot.stop()));
  }

  /**
   * Gives an ingest connection (and the bytes read from it) to the next worker that serves.
   * While none does (they start with the first such connection, in about half a second, or one
   * is restarting), `elsewhere` takes it: the main thread answers, and closes it after its
   * answer, so that the client's next connection can go to a worker.
   */
  place(socket: Socket, head: Buffer, elsewhere: () => void): void {
    const slot = this.#nextReady();
    if (slot) {
      slot.take(socket, head);
      return;
    }
    this.start();
    elsewhere();
  }

  /** The ids of the threads that serve now. */
  threadIds(): number[] {
    return this.#slots.flatMap((slot) => (slot.threadId === undefined ? [] : [slot.threadId]));
  }

  /** Ends one thread as a crash would; it is restarted (tests). False when no thread has that id. */
  async terminateThread(threadId: number): Promise<boolean> {
    const slot = this.#slots.find((s) => s.threadId === threadId);
    if (!slot) return false;
    await slot.terminate();
    return true;
  }

  /** Each worker's metrics (prom-client's getMetricsAsJSON()), for GET /metrics. */
  metricsJson(): Promise<unknown[][]> {
    return Promise.all(this.#slots.map((slot) => slot.metricsJson()));
  }

  #nextReady(): WorkerSlot | undefined {
    for (let i = 0; i < this.#slots.length; i++) {
      const slot = this.#slots[(this.#turn + i) % this.#slots.length];
      if (!slot?.ready) continue;
      this.#turn = (this.#turn + i + 1) % this.#slots.length;
      return slot;
    }
    return undefined;
  }
}
