import { Worker } from "node:worker_threads";
import type { TelemetryWriterHost } from "../../ports/telemetry-store.ts";
import type { Sqlite } from "../client.ts";

export type CheckpointerOptions = {
  /** How often the worker checkpoints the WAL. */
  intervalMs: number;
};

/**
 * Moves WAL checkpoints off the write path. SQLite's default runs a checkpoint inside the commit
 * that crosses 1,000 WAL pages, fsync included: under sustained ingest that was the largest stall
 * of the write path (profiled, issue 3). A thread with its own connection copies WAL pages into
 * the database file in the background (PASSIVE mode never blocks the writer, and it writes no
 * data, so it invalidates no reader's snapshot); the server connection's automatic checkpoint is
 * raised (see SqliteTelemetryWriter) so that it mostly finds the pages copied. Only that checkpoint,
 * run between two of the writer's own commits, can complete while writes continue, which lets
 * the next commit restart the WAL.
 */
export class WalCheckpointer {
  readonly #sqlite: Sqlite;
  readonly #logger: Pick<TelemetryWriterHost, "warn" | "error">;
  readonly #options: CheckpointerOptions;
  #worker: Worker | undefined;
  #exited: Promise<void> | undefined;

  constructor(
    sqlite: Sqlite,
    logger: Pick<TelemetryWriterHost, "warn" | "error">,
    options: CheckpointerOptions,
  ) {
    this.#sqlite = sqlite;
    this.#logger = logger;
    this.#options = options;
  }

  start(): void {
    // In-memory and non-WAL databases have nothing to checkpoint.
    if (
      this.#worker ||
      this.#sqlite.memory ||
      this.#sqlite.pragma("journal_mode", { simple: true }) !== "wal"
    )
      return;
    const worker = new Worker(new URL("./checkpoint-worker.ts", import.meta.url), {
      workerData: { file: this.#sqlite.name, intervalMs: this.#options.intervalMs },
    });
    worker.on("message", (m: { type: string; message?: string }) => {
      if (m.type === "error") this.#logger.warn("wal checkpoint failed", { error: m.message });
    });
    worker.on("error", (err) => this.#logger.error("wal checkpointer crashed", { error: err.message }));
    worker.unref();
    this.#exited = new Promise((resolve) => worker.once("exit", () => resolve()));
    this.#worker = worker;
  }

  async stop(): Promise<void> {
    const worker = this.#worker;
    this.#worker = undefined;
    if (!worker) return;
    // The worker closes its connection and exits (a crashed one has exited already); keep the
    // event loop alive until it has.
    worker.ref();
    worker.postMessage("stop");
    await this.#exited;
  }
}
