import type { AgentDevice, AgentVariable } from "../../shared/mqtt/agent-config.ts";
import type { Driver, DriverFactory, TagResult } from "../drivers/driver.ts";

export type DeviceState = "ok" | "failing" | "disabled" | "unsupported";

export type PolledValue = { variable: AgentVariable; result: TagResult; ts: number };

export type DeviceStatus = {
  device_id: string;
  name: string;
  state: DeviceState;
  last_error: string | null;
  last_read_at: string | null;
  reconnects: number;
};

export type PollerOptions = {
  timeoutMs: number;
  /** First reconnect delay; doubles per failure up to maxBackoffMs. */
  minBackoffMs: number;
  maxBackoffMs: number;
  now: () => number;
  onValues: (device: AgentDevice, values: PolledValue[]) => void;
  onLog: (level: "info" | "warn" | "error", message: string) => void;
};

type Group = { intervalMs: number; variables: AgentVariable[]; nextAt: number };
type Batch = { variables: AgentVariable[]; byId: Map<string, AgentVariable> };

/**
 * Polls one device on its own async loop: one request in flight on its connection, a timeout
 * per request, exponential reconnect backoff. A failing device never stalls another, because
 * each device has its own loop and connection.
 */
export class DevicePoller {
  readonly device: AgentDevice;
  readonly #driver: Driver;
  readonly #options: PollerOptions;
  readonly #groups: Group[];
  readonly #batches = new Map<string, Batch>();
  #running = false;
  #wake: (() => void) | undefined;
  #timer: NodeJS.Timeout | undefined;
  #loop: Promise<void> | undefined;
  #status: DeviceStatus;

  constructor(device: AgentDevice, factory: DriverFactory, options: PollerOptions) {
    this.device = device;
    this.#options = options;
    this.#driver = factory(device, { timeoutMs: options.timeoutMs });
    const byInterval = new Map<number, AgentVariable[]>();
    for (const v of device.variables) {
      const list = byInterval.get(v.poll_interval_ms) ?? [];
      list.push(v);
      byInterval.set(v.poll_interval_ms, list);
    }
    this.#groups = [...byInterval].map(([intervalMs, variables]) => ({ intervalMs, variables, nextAt: 0 }));
    this.#status = {
      device_id: device.id,
      name: device.name,
      state: "ok",
      last_error: null,
      last_read_at: null,
      reconnects: 0,
    };
  }

  get status(): DeviceStatus {
    return { ...this.#status };
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#loop = this.#run();
  }

  async stop(): Promise<void> {
    this.#running = false;
    if (this.#timer) clearTimeout(this.#timer);
    this.#wake?.();
    await this.#loop;
    await this.#driver.close().catch(() => {});
  }

  async #run(): Promise<void> {
    let backoff = this.#options.minBackoffMs;
    let connectedBefore = false;
    while (this.#running) {
      try {
        if (!this.#driver.connected) {
          await this.#driver.connect();
          // The first connection is not a reconnect; every later one is.
          if (connectedBefore) {
            this.#status.reconnects += 1;
            this.#options.onLog("info", `${this.device.name}: reconnected`);
          }
          connectedBefore = true;
        }
        await this.#pollDue();
        backoff = this.#options.minBackoffMs;
        if (this.#status.state !== "ok") this.#status = { ...this.#status, state: "ok", last_error: null };
        await this.#sleep(this.#untilNextDue());
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        if (this.#status.state !== "failing" || this.#status.last_error !== message) {
          this.#options.onLog("warn", `${this.device.name}: ${message}; retrying in ${backoff} ms`);
        }
        this.#status = { ...this.#status, state: "failing", last_error: message };
        await this.#driver.close().catch(() => {});
        await this.#sleep(backoff);
        backoff = Math.min(backoff * 2, this.#options.maxBackoffMs);
      }
    }
  }

  async #pollDue(): Promise<void> {
    const now = this.#options.now();
    const due = this.#groups.filter((g) => g.nextAt <= now);
    if (due.length === 0) return;
    const { variables, byId } = this.#batch(due);
    const results = await this.#driver.read(variables);
    const ts = this.#options.now();
    for (const g of due) {
      // Keep the cadence: the next poll is one interval after the previous slot, not after now.
      g.nextAt = g.nextAt === 0 ? ts + g.intervalMs : Math.max(g.nextAt + g.intervalMs, ts);
    }
    const values: PolledValue[] = [];
    for (const result of results) {
      const variable = byId.get(result.variableId);
      if (variable) values.push({ variable, result, ts });
    }
    this.#status.last_read_at = new Date(ts).toISOString();
    this.#options.onValues(this.device, values);
  }

  /**
   * The variables of a set of due groups, built once per set: the same array on every poll lets
   * the driver reuse its block plan without comparing the lists.
   */
  #batch(due: Group[]): Batch {
    const key = due.map((g) => this.#groups.indexOf(g)).join(",");
    let batch = this.#batches.get(key);
    if (!batch) {
      const variables = due.flatMap((g) => g.variables);
      batch = { variables, byId: new Map(variables.map((v) => [v.id, v])) };
      this.#batches.set(key, batch);
    }
    return batch;
  }

  #untilNextDue(): number {
    const next = Math.min(...this.#groups.map((g) => g.nextAt));
    return Number.isFinite(next) ? Math.max(0, next - this.#options.now()) : 1000;
  }

  #sleep(ms: number): Promise<void> {
    if (!this.#running) return Promise.resolve();
    return new Promise((resolve) => {
      this.#wake = resolve;
      this.#timer = setTimeout(resolve, ms);
    });
  }
}
