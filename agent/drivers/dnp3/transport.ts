/**
 * The transport function (IEEE 1815-2012 §8.2): one header byte per link frame, FIN (0x80),
 * FIR (0x40) and a 6-bit sequence number that rises by one per segment, modulo 64.
 */
export const MAX_SEGMENT_PAYLOAD = 249;
/** Default limit of a reassembled APDU; opendnp3 and IEEE 1815 default to 2048 bytes. */
export const DEFAULT_MAX_APDU = 2048;

const FIN = 0x80;
const FIR = 0x40;

export function segmentApdu(apdu: Uint8Array, firstSeq: number): { segments: Uint8Array[]; nextSeq: number } {
  const segments: Uint8Array[] = [];
  let seq = firstSeq & 0x3f;
  let at = 0;
  do {
    const size = Math.min(MAX_SEGMENT_PAYLOAD, apdu.length - at);
    const segment = new Uint8Array(size + 1);
    segment[0] = (at === 0 ? FIR : 0) | (at + size >= apdu.length ? FIN : 0) | seq;
    segment.set(apdu.subarray(at, at + size), 1);
    segments.push(segment);
    at += size;
    seq = (seq + 1) & 0x3f;
  } while (at < apdu.length);
  return { segments, nextSeq: seq };
}

/**
 * Reassembles segments into APDUs. Out-of-order or orphan segments are dropped and counted
 * (§8.2.1.2 rules): the application layer's own timeout then covers the loss.
 */
export class TransportReassembler {
  readonly errors = { ignored: 0, discarded: 0, overflow: 0 };
  readonly #maxApdu: number;
  #parts: Uint8Array[] = [];
  #size = 0;
  #expectedSeq: number | undefined;

  constructor(maxApdu = DEFAULT_MAX_APDU) {
    this.#maxApdu = maxApdu;
  }

  /** Returns the whole APDU when `segment` completes one. */
  push(segment: Uint8Array): Uint8Array | undefined {
    const header = segment[0];
    if (header === undefined) return undefined;
    const seq = header & 0x3f;
    const payload = segment.subarray(1);
    if (header & FIR) {
      if (this.#expectedSeq !== undefined) this.errors.discarded += 1;
      this.#reset();
    } else if (this.#expectedSeq === undefined || seq !== this.#expectedSeq) {
      this.errors.ignored += 1;
      this.#reset();
      return undefined;
    }
    if (this.#size + payload.length > this.#maxApdu) {
      this.errors.overflow += 1;
      this.#reset();
      return undefined;
    }
    this.#parts.push(payload);
    this.#size += payload.length;
    if (!(header & FIN)) {
      this.#expectedSeq = (seq + 1) & 0x3f;
      return undefined;
    }
    const apdu = new Uint8Array(this.#size);
    let at = 0;
    for (const part of this.#parts) {
      apdu.set(part, at);
      at += part.length;
    }
    this.#reset();
    return apdu;
  }

  #reset(): void {
    this.#parts = [];
    this.#size = 0;
    this.#expectedSeq = undefined;
  }
}
