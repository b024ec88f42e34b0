import { AsyncLocalStorage } from "node:async_hooks";

/**
 * One SQLite connection serves the whole process, so an open transaction is everyone's: a write
 * made from another request while it is open would commit, or roll back, with it. The gate keeps
 * the store's operations out of an open transaction unless they come from inside it (its async
 * context), and queues them, in order, until it ends. Transactions queue the same way.
 *
 * A transaction's work must await nothing but the ports (they answer synchronously underneath),
 * so it ends before the event loop turns: writers that use the connection directly (the telemetry
 * writer's inbox moves, roll-ups and packing, on timers) then never find a transaction open. The
 * telemetry group commit itself runs as a transaction here (store/sqlite/telemetry/group-commit.ts).
 */
export class TransactionGate {
  readonly #context = new AsyncLocalStorage<symbol>();
  #open: symbol | null = null;
  readonly #waiting: (() => void)[] = [];

  /** True while a transaction is open. */
  get busy(): boolean {
    return this.#open !== null;
  }

  /** Runs `op` now when no transaction is open or when called from inside it; else once it ends. */
  run<T>(op: () => T): Promise<T> {
    if (this.#open === null || this.#context.getStore() === this.#open) return settle(op);
    return new Promise((resolve, reject) => this.#waiting.push(() => settle(op).then(resolve, reject)));
  }

  /** Calls `callback` now when no transaction is open, else as soon as the open one ends. */
  whenIdle(callback: () => void): void {
    if (this.#open === null) callback();
    else this.#waiting.push(callback);
  }

  /**
   * Runs `work` as the one open transaction: `begin` before it, `commit` when it resolves,
   * `rollback` when it throws. Called from inside the open transaction, it refuses: the caller
   * must use the ports it was handed.
   */
  transaction<T>(
    steps: { begin(): void; commit(): void; rollback(): void },
    work: () => Promise<T>,
  ): Promise<T> {
    if (this.#open !== null && this.#context.getStore() === this.#open) {
      return Promise.reject(new Error("a transaction is already open here: use the ports it handed you"));
    }
    const start = async (): Promise<T> => {
      const token = Symbol("transaction");
      steps.begin();
      this.#open = token;
      // Work that only awaits the ports settles before the event loop turns. Had it turned,
      // timers and I/O callbacks could have written through the connection, inside this
      // transaction: it is rolled back and refused, so that tests find such work.
      let turned = false;
      const turn = setImmediate(() => {
        turned = true;
      });
      try {
        const value = await this.#context.run(token, work);
        if (turned)
          throw new Error("a store transaction awaited something other than its ports: rolled back");
        steps.commit();
        return value;
      } catch (err) {
        steps.rollback();
        throw err;
      } finally {
        clearImmediate(turn);
        this.#release();
      }
    };
    if (this.#open === null) return start();
    return new Promise<T>((resolve, reject) => this.#waiting.push(() => start().then(resolve, reject)));
  }

  #release(): void {
    this.#open = null;
    while (this.#open === null && this.#waiting.length > 0) this.#waiting.shift()?.();
  }
}

function settle<T>(op: () => T): Promise<T> {
  try {
    return Promise.resolve(op());
  } catch (err) {
    return Promise.reject(err);
  }
}
