import { SensorWalk } from "./sensor-walk.ts";

/** One asset's data as the load generator sends it: `variables` variables at 1 Hz from `startMs`. */
export type SeriesSpec = {
  assetId: string;
  seed: number;
  variables: number;
  startMs: number;
  /** Seconds per block: one block is one request (HTTP) or one message (MQTT). */
  blockSeconds: number;
};

/**
 * What the load generator sent for one asset, block by block, and which blocks the other side
 * acknowledged: the record every stored point is checked against.
 */
export class SeriesLog {
  readonly spec: SeriesSpec;
  readonly #walk: SensorWalk;
  readonly #blocks: Float32Array[] = [];
  readonly #acked: boolean[] = [];

  constructor(spec: SeriesSpec) {
    this.spec = spec;
    this.#walk = new SensorWalk(spec.seed, spec.variables);
  }

  get blocks(): number {
    return this.#blocks.length;
  }

  /** The next block's index, first second (epoch ms) and values (time-major). */
  nextBlock(): { index: number; fromMs: number; values: Float32Array } {
    const index = this.#blocks.length;
    const values = this.#walk.take(this.spec.blockSeconds);
    this.#blocks.push(values);
    this.#acked.push(false);
    return { index, fromMs: this.spec.startMs + index * this.spec.blockSeconds * 1000, values };
  }

  ack(index: number): void {
    this.#acked[index] = true;
  }

  acked(index: number): boolean {
    return this.#acked[index] === true;
  }

  get acknowledgedPoints(): number {
    return this.#acked.filter(Boolean).length * this.spec.blockSeconds * this.spec.variables;
  }

  /** The value sent for (second from start, variable), or undefined when nothing was sent there. */
  sent(second: number, variable: number): { block: number; value: number } | undefined {
    const block = Math.floor(second / this.spec.blockSeconds);
    const values = this.#blocks[block];
    if (!values || variable < 0 || variable >= this.spec.variables) return undefined;
    const value = values[(second - block * this.spec.blockSeconds) * this.spec.variables + variable];
    return value === undefined ? undefined : { block, value };
  }

  /** [from, to) of what was sent, epoch ms. */
  get rangeMs(): [number, number] {
    return [this.spec.startMs, this.spec.startMs + this.#blocks.length * this.spec.blockSeconds * 1000];
  }
}

export type CheckResult = {
  /** Points in acknowledged requests or messages. */
  acknowledged: number;
  /** Of those, read back once with the exact value sent. */
  exact: number;
  missing: number;
  wrongValue: number;
  /** Read back a second time (same asset, variable and second). */
  duplicates: number;
  /** Read back although their request was not acknowledged (a failed HTTP request, partly stored). */
  unacknowledged: number;
  /** Read back at a second or variable nothing was sent for. */
  unexpected: number;
};

/** Checks what a side reads back, row by row, against a SeriesLog. */
export class StoredCheck {
  readonly #log: SeriesLog;
  #seen = new Uint8Array(1024);
  #exact = 0;
  #wrong = 0;
  #duplicates = 0;
  #unacknowledged = 0;
  #unexpected = 0;

  constructor(log: SeriesLog) {
    this.#log = log;
  }

  row(tsMs: number, variable: number, value: number): void {
    const { startMs, variables } = this.#log.spec;
    const second = (tsMs - startMs) / 1000;
    const sent = Number.isInteger(second) ? this.#log.sent(second, variable) : undefined;
    if (!sent) {
      this.#unexpected++;
      return;
    }
    const at = second * variables + variable;
    if (at >= this.#seen.length) {
      const grown = new Uint8Array(Math.max(at + 1, this.#seen.length * 2));
      grown.set(this.#seen);
      this.#seen = grown;
    }
    if (this.#seen[at]) {
      this.#duplicates++;
      return;
    }
    this.#seen[at] = 1;
    if (!this.#log.acked(sent.block)) this.#unacknowledged++;
    else if (value === sent.value) this.#exact++;
    else this.#wrong++;
  }

  result(): CheckResult {
    const acknowledged = this.#log.acknowledgedPoints;
    return {
      acknowledged,
      exact: this.#exact,
      missing: acknowledged - this.#exact - this.#wrong,
      wrongValue: this.#wrong,
      duplicates: this.#duplicates,
      unacknowledged: this.#unacknowledged,
      unexpected: this.#unexpected,
    };
  }
}

/** Every acknowledged point stored once with its value; nothing else read back but unacknowledged rows. */
export const checkPassed = (c: CheckResult) =>
  c.exact === c.acknowledged && c.duplicates === 0 && c.unexpected === 0;

export function sumChecks(checks: readonly CheckResult[]): CheckResult {
  const total: CheckResult = {
    acknowledged: 0,
    exact: 0,
    missing: 0,
    wrongValue: 0,
    duplicates: 0,
    unacknowledged: 0,
    unexpected: 0,
  };
  for (const c of checks) for (const k of Object.keys(total) as (keyof CheckResult)[]) total[k] += c[k];
  return total;
}
