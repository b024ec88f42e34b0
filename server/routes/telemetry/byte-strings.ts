const NO_BYTES = Buffer.alloc(0);

/**
 * Distinct strings of one request body, keyed by their bytes: a name that recurs in every reading
 * (a variable, a unit) is hashed and compared where it lies in the body and becomes a JS string
 * only the first time. Only for ASCII without escapes, where bytes and UTF-16 units are one to one.
 * One table serves every request of a thread; a generation number empties it in O(1).
 */
export class ByteStrings {
  /** Strings of the current body, in first-seen order: PayloadColumns.strings. */
  list: string[] = [];
  /** Per string: bits its caller has proved (e.g. "is a UUID"), so each test runs once. */
  readonly proven: Uint8Array;
  readonly #start: Int32Array;
  readonly #end: Int32Array;
  readonly #slotIndex: Int32Array;
  readonly #slotGeneration: Int32Array;
  readonly #mask: number;
  #generation = 0;
  #bytes: Buffer = NO_BYTES;

  /** `capacity`: most strings in one body; the table keeps at least half its slots free. */
  constructor(capacity: number) {
    let slots = 2;
    while (slots < capacity * 2) slots *= 2;
    this.#mask = slots - 1;
    this.#slotIndex = new Int32Array(slots);
    this.#slotGeneration = new Int32Array(slots);
    this.#start = new Int32Array(capacity);
    this.#end = new Int32Array(capacity);
    this.proven = new Uint8Array(capacity);
  }

  /** Starts on a new body: no strings yet. */
  reset(bytes: Buffer): void {
    this.#bytes = bytes;
    this.list = [];
    if (this.#generation === 0x7fffffff) {
      this.#slotGeneration.fill(0);
      this.#generation = 0;
    }
    this.#generation++;
  }

  /** Lets go of the body and the strings. */
  release(): void {
    this.#bytes = NO_BYTES;
    this.list = [];
  }

  /** The index of bytes [start, end) (whose FNV-1a hash is `hash`), adding the string if new; -1 when full. */
  indexOf(start: number, end: number, hash: number): number {
    const bytes = this.#bytes;
    const length = end - start;
    let slot = (hash ^ (hash >>> 16)) & this.#mask;
    for (;;) {
      if (this.#slotGeneration[slot] !== this.#generation) return this.#add(slot, start, end);
      const i = this.#slotIndex[slot] ?? 0;
      const at = this.#start[i] ?? 0;
      if ((this.#end[i] ?? 0) - at === length && sameBytes(bytes, at, start, length)) return i;
      slot = (slot + 1) & this.#mask;
    }
  }

  #add(slot: number, start: number, end: number): number {
    const i = this.list.length;
    if (i >= this.#start.length) return -1;
    this.list.push(this.#bytes.toString("latin1", start, end));
    this.#start[i] = start;
    this.#end[i] = end;
    this.proven[i] = 0;
    this.#slotIndex[slot] = i;
    this.#slotGeneration[slot] = this.#generation;
    return i;
  }
}

function sameBytes(bytes: Buffer, a: number, b: number, length: number): boolean {
  for (let k = 0; k < length; k++) if (bytes[a + k] !== bytes[b + k]) return false;
  return true;
}

export const FNV_OFFSET = 0x811c9dc5 | 0;
export const FNV_PRIME = 16777619;
