/** 2^24: the widest write that fits the 32-bit accumulator beside up to 7 pending bits. */
const WORD = 0x1000000;

/**
 * An append-only bit stream, most significant bit first, in a growing byte buffer. Values are
 * JavaScript numbers: bitwise operators reach 32 bits, so writes wider than 24 bits are split.
 */
export class BitWriter {
  #bytes: Uint8Array;
  #length = 0;
  /** Pending bits (fewer than 8), right-aligned. */
  #acc = 0;
  #accBits = 0;

  constructor(capacity = 256) {
    this.#bytes = new Uint8Array(Math.max(16, capacity));
  }

  /** Writes the low `count` bits of `value` (0 ≤ count ≤ 24, 0 ≤ value < 2^count). */
  bits(value: number, count: number): void {
    this.#acc = (this.#acc << count) | value;
    this.#accBits += count;
    while (this.#accBits >= 8) {
      this.#accBits -= 8;
      this.#push((this.#acc >>> this.#accBits) & 0xff);
    }
    this.#acc &= (1 << this.#accBits) - 1;
  }

  /** Writes `value` (a non-negative integer below 2^count, count ≤ 53) in `count` bits. */
  wide(value: number, count: number): void {
    let rest = value;
    let left = count;
    while (left > 24) {
      left -= 24;
      const scale = 2 ** left;
      const top = Math.floor(rest / scale);
      this.bits(top, 24);
      rest -= top * scale;
    }
    this.bits(rest, left);
  }

  /** Writes `count` one bits. */
  ones(count: number): void {
    let left = count;
    while (left > 24) {
      this.bits(WORD - 1, 24);
      left -= 24;
    }
    this.bits((1 << left) - 1, left);
  }

  /** The bytes written, the last one padded with zero bits. */
  finish(): Uint8Array {
    if (this.#accBits > 0) this.bits(0, 8 - this.#accBits);
    return this.#bytes.subarray(0, this.#length);
  }

  #push(byte: number): void {
    if (this.#length === this.#bytes.length) {
      const grown = new Uint8Array(this.#bytes.length * 2);
      grown.set(this.#bytes);
      this.#bytes = grown;
    }
    this.#bytes[this.#length++] = byte;
  }
}
