/**
 * Values older than one already published (an agent's backlog, or values superseded before they
 * left), waiting to reach HMIs as historical DDATA, in arrival order, which for one series is time
 * order. Kept in typed-array chunks: 20 bytes a value, no object per value. Bounded: past
 * `capacity` the oldest chunk is dropped (and counted), so a long silence of the HMIs cannot
 * exhaust memory.
 */
const CHUNK = 65_536;

type Chunk = { alias: Uint32Array; ts: Float64Array; value: Float64Array; length: number };

const newChunk = (): Chunk => ({
  alias: new Uint32Array(CHUNK),
  ts: new Float64Array(CHUNK),
  value: new Float64Array(CHUNK),
  length: 0,
});

export class HistoryQueue {
  readonly #capacity: number;
  readonly #chunks: Chunk[] = [];
  /** Read position in the first chunk. */
  #head = 0;
  #size = 0;
  #dropped = 0;

  constructor(capacity: number) {
    this.#capacity = Math.max(CHUNK, capacity);
  }

  get size(): number {
    return this.#size;
  }

  /** Values dropped because the queue was full, since the start. */
  get dropped(): number {
    return this.#dropped;
  }

  push(alias: number, ts: number, value: number): void {
    let last = this.#chunks.at(-1);
    if (!last || last.length === CHUNK) {
      if (this.#size + CHUNK > this.#capacity && this.#chunks.length > 0) this.#dropOldestChunk();
      last = newChunk();
      this.#chunks.push(last);
    }
    last.alias[last.length] = alias;
    last.ts[last.length] = ts;
    last.value[last.length] = value;
    last.length += 1;
    this.#size += 1;
  }

  /** Calls `take` for up to `max` of the oldest values, removing them. */
  drain(max: number, take: (alias: number, ts: number, value: number) => void): number {
    let n = 0;
    while (n < max) {
      const first = this.#chunks[0];
      if (!first || this.#head >= first.length) {
        if (!first || first.length < CHUNK) break;
        this.#chunks.shift();
        this.#head = 0;
        continue;
      }
      take(first.alias[this.#head] ?? 0, first.ts[this.#head] ?? 0, first.value[this.#head] ?? 0);
      this.#head += 1;
      this.#size -= 1;
      n += 1;
    }
    if (this.#size === 0) this.clear();
    return n;
  }

  clear(): void {
    this.#chunks.length = 0;
    this.#head = 0;
    this.#size = 0;
  }

  #dropOldestChunk(): void {
    const first = this.#chunks.shift();
    if (!first) return;
    const lost = first.length - this.#head;
    this.#dropped += lost;
    this.#size -= lost;
    this.#head = 0;
  }
}
