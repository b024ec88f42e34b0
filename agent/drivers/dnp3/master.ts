import { buildClearRestart, buildConfirm, buildReadClasses, buildWriteTime } from "./app-request.ts";
import { parseResponse, type Response } from "./app-response.ts";
import type { Measurement } from "./objects.ts";

/**
 * The master's application-layer session (IEEE 1815-2012 §4, §5.1): one solicited request at a
 * time, SEQ 0–15, confirmations of fragments that ask for one, and the tasks the IIN bits call
 * for. Transport-agnostic: it is given a `send` function and fed whole APDUs.
 *
 * Tasks, highest priority first:
 *   clear-restart  WRITE g80v1 index 7 = 0, when a response shows IIN1.7 DEVICE_RESTART
 *   integrity      READ classes 1, 2, 3, 0 (§5.1.1: events first so static data is the newest),
 *                  at its interval and after a restart
 *   time-sync      WRITE g50v1 (the current time), when a response shows IIN1.4 NEED_TIME
 *   events         READ classes 1, 2, 3, at its interval
 * The LAN procedure without a delay measurement is used: over TCP on a site network the
 * transmission delay is far below the outstation clock's resolution needs here.
 */
export type MasterOptions = {
  integrityPollIntervalMs: number;
  eventPollIntervalMs: number;
  /** How long to wait for each response fragment. */
  timeoutMs: number;
  /** The clock written on NEED_TIME, ms since 1970 UTC. */
  now?: () => number;
};

export type MasterHooks = {
  send: (apdu: Uint8Array) => void;
  onMeasurements: (measurements: readonly Measurement[]) => void;
  /** A request went unanswered; `consecutive` counts timeouts since the last response. */
  onTimeout: (consecutive: number) => void;
  /** A fragment could not be read completely (its readable points were applied). */
  onParseError?: (error: string) => void;
};

type Task = "clear-restart" | "integrity" | "time-sync" | "events";
const PRIORITY: readonly Task[] = ["clear-restart", "integrity", "time-sync", "events"];

type InFlight = {
  task: Task;
  /** SEQ of the next fragment expected. */
  seq: number;
  first: boolean;
  timer: NodeJS.Timeout;
  done: (error?: Error) => void;
};

export class MasterTimeoutError extends Error {}

export class Master {
  readonly #options: MasterOptions;
  readonly #hooks: MasterHooks;
  readonly #due = new Set<Task>();
  readonly #waiters = new Map<Task, ((error?: Error) => void)[]>();
  #seq = 0;
  #inFlight: InFlight | undefined;
  #timers: NodeJS.Timeout[] = [];
  #running = false;
  #consecutiveTimeouts = 0;
  /** Set while a restart IIN has been acted on and not yet seen cleared, so it is acted on once. */
  #restartHandled = false;
  #timeSyncHandled = false;
  /** Responses whose SEQ or FIR did not fit the request in flight. */
  unexpectedFragments = 0;

  constructor(options: MasterOptions, hooks: MasterHooks) {
    this.#options = options;
    this.#hooks = hooks;
  }

  /** True once a request went unanswered, until the next response. */
  get silent(): boolean {
    return this.#consecutiveTimeouts > 0;
  }

  /** Starts the poll timers and runs the first integrity poll; resolves when it is answered. */
  start(): Promise<void> {
    this.#running = true;
    const every = (ms: number, task: Task) => {
      const timer = setInterval(() => this.#demand(task), ms);
      timer.unref();
      this.#timers.push(timer);
    };
    every(this.#options.integrityPollIntervalMs, "integrity");
    every(this.#options.eventPollIntervalMs, "events");
    return this.demand("integrity");
  }

  stop(): void {
    this.#running = false;
    for (const t of this.#timers) clearInterval(t);
    this.#timers = [];
    const flight = this.#inFlight;
    this.#inFlight = undefined;
    if (flight) {
      clearTimeout(flight.timer);
      flight.done(new Error("master stopped"));
    }
    this.#due.clear();
    for (const [task, waiters] of this.#waiters)
      for (const w of waiters) w(new Error(`${task}: master stopped`));
    this.#waiters.clear();
  }

  /** Queues a task (once) and resolves when it completes, or rejects on its timeout. */
  demand(task: Task): Promise<void> {
    return new Promise((resolve, reject) => {
      const list = this.#waiters.get(task) ?? [];
      list.push((error) => (error ? reject(error) : resolve()));
      this.#waiters.set(task, list);
      this.#demand(task);
    });
  }

  #demand(task: Task): void {
    if (!this.#running) return;
    this.#due.add(task);
    this.#next();
  }

  #next(): void {
    if (this.#inFlight || !this.#running) return;
    const task = PRIORITY.find((t) => this.#due.has(t));
    if (!task) return;
    this.#due.delete(task);
    const seq = this.#seq;
    this.#seq = (seq + 1) & 0x0f;
    const done = (error?: Error) => {
      const waiters = this.#waiters.get(task) ?? [];
      this.#waiters.delete(task);
      for (const w of waiters) w(error);
    };
    this.#inFlight = { task, seq, first: true, timer: this.#armTimer(), done };
    this.#hooks.send(this.#request(task, seq));
  }

  #request(task: Task, seq: number): Uint8Array {
    switch (task) {
      case "clear-restart":
        return buildClearRestart(seq);
      case "integrity":
        return buildReadClasses(seq, [1, 2, 3, 0]);
      case "time-sync":
        return buildWriteTime(seq, (this.#options.now ?? Date.now)());
      case "events":
        return buildReadClasses(seq, [1, 2, 3]);
    }
  }

  #armTimer(): NodeJS.Timeout {
    return setTimeout(() => this.#onTimeout(), this.#options.timeoutMs);
  }

  #onTimeout(): void {
    const flight = this.#inFlight;
    if (!flight) return;
    this.#inFlight = undefined;
    this.#consecutiveTimeouts += 1;
    flight.done(new MasterTimeoutError(`${flight.task}: no response within ${this.#options.timeoutMs} ms`));
    this.#hooks.onTimeout(this.#consecutiveTimeouts);
    this.#next();
  }

  /** Feeds one APDU received from the outstation. */
  receive(apdu: Uint8Array): void {
    const parsed = parseResponse(apdu);
    if (!parsed.ok) {
      this.#hooks.onParseError?.(parsed.error);
      return;
    }
    const r = parsed.response;
    if (r.unsolicited) {
      // Unsolicited fragments have their own SEQ space and are confirmed with UNS set (§4.6.4).
      if (r.control.con) this.#hooks.send(buildConfirm(r.control.seq, true));
      this.#accept(r);
      this.#next();
      return;
    }
    const flight = this.#inFlight;
    if (!flight || r.control.seq !== flight.seq || r.control.fir !== flight.first) {
      this.unexpectedFragments += 1;
      return;
    }
    // §4.5.3: a solicited fragment with CON is confirmed with its own SEQ, UNS clear.
    if (r.control.con) this.#hooks.send(buildConfirm(r.control.seq, false));
    this.#accept(r);
    clearTimeout(flight.timer);
    if (!r.control.fin) {
      flight.first = false;
      flight.seq = (flight.seq + 1) & 0x0f;
      flight.timer = this.#armTimer();
      return;
    }
    this.#inFlight = undefined;
    flight.done();
    this.#next();
  }

  #accept(r: Response): void {
    this.#consecutiveTimeouts = 0;
    if (r.measurements.length > 0) this.#hooks.onMeasurements(r.measurements);
    if (r.error !== undefined) this.#hooks.onParseError?.(r.error);
    if (r.iin.deviceRestart && !this.#restartHandled) {
      // The outstation restarted: acknowledge it, then rebuild the point table from scratch.
      this.#restartHandled = true;
      this.#demand("clear-restart");
      this.#demand("integrity");
    } else if (!r.iin.deviceRestart) this.#restartHandled = false;
    if (r.iin.needTime && !this.#timeSyncHandled) {
      this.#timeSyncHandled = true;
      this.#demand("time-sync");
    } else if (!r.iin.needTime) this.#timeSyncHandled = false;
  }
}
