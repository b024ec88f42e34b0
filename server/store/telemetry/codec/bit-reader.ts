/** Thrown when a block's bytes end before what its header promises, or are otherwise malformed. */
export class CorruptBlockError extends Error {}

/** Reads what BitWriter wrote, most significant bit first. */
export class BitReader {
  readonly #bytes: Uint8Array;
  #pos: number;
  /** Buffered bits (at most 31), right-aligned. */
  #acc = 0;
  #accBits = 0;

  constructor(bytes: Uint8Array, offset = 0) {
    this.#bytes = bytes;
    this.#pos = offset;
  }

  /** Reads `count` bits (1 ≤ count ≤ 24) as an unsigned number. */
  bits(count: number): number {
    while (this.#accBits < count) {
      const byte = this.#bytes[this.#pos++];
      if (byte === undefined) throw new CorruptBlockError("block ends early");
      this.#acc = (this.#acc << 8) | byte;
      this.#accBits += 8;
    }
    this.#accBits -= count;
    const value = (this.#acc >>> this.#accBits) & ((1 << count) - 1);
    this.#acc &= (1 << this.#accBits) - 1;
    return value;
  }

  /** Reads `count` bits (0 ≤ count ≤ 53) as an unsigned number. */
  wide(count: number): number {
    let value = 0;
    let left = count;
    while (left > 24) {
      value = value * 0x1000000 + this.bits(24);
      left -= 24;
    }
    return left === 0 ? value : value * 2 ** left + this.bits(left);
  }

  /** Counts one bits up to the next zero bit (consumed) or `max` ones (then no zero is consumed). */
  ones(max: number): number {
    let count = 0;
    while (count < max) {
      if (this.#accBits === 0) {
        const byte = this.#bytes[this.#pos++];
        if (byte === undefined) throw new CorruptBlockError("block ends early");
        this.#acc = byte;
        this.#accBits = 8;
      }
      const available = this.#accBits;
      const zeros = ~this.#acc & ((1 << available) - 1);
      const lead = zeros === 0 ? available : Math.clz32(zeros) - (32 - available);
      const take = Math.min(lead, max - count);
      count += take;
      // A zero ends the run, unless `max` ones came first (then what follows is not ours).
      const stop = count < max && lead < available;
      this.#accBits -= stop ? take + 1 : take;
      this.#acc &= (1 << this.#accBits) - 1;
      if (stop) return count;
    }
    return count;
  }
}
