import { Duplex } from "node:stream";

/**
 * Follows the MQTT packet boundaries of an inbound byte stream from each fixed header alone
 * (MQTT 3.1.1 §2.2: one type byte, then the Remaining Length in 1–4 bytes of 7 bits), skipping
 * bodies without looking at them, so a packet's size is known before any of its body arrives.
 */
export class PacketBoundaries {
  readonly #maxBytes: number;
  #phase: "type" | "length" | "body" = "type";
  #length = 0;
  #lengthBytes = 0;
  #bodyLeft = 0;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  /**
   * Takes the next chunk. Returns null while every packet fits, otherwise the announced size of
   * the first that does not (its whole size: fixed header included, as MQTT 5's Maximum Packet
   * Size counts it), or -1 for a Remaining Length longer than 4 bytes [MQTT-2.2.3].
   */
  feed(chunk: Uint8Array): number | null {
    let i = 0;
    while (i < chunk.length) {
      if (this.#phase === "body") {
        const step = Math.min(this.#bodyLeft, chunk.length - i);
        this.#bodyLeft -= step;
        i += step;
        if (this.#bodyLeft === 0) this.#phase = "type";
        continue;
      }
      const byte = chunk[i++] ?? 0;
      if (this.#phase === "type") {
        this.#phase = "length";
        this.#length = 0;
        this.#lengthBytes = 0;
        continue;
      }
      this.#length += (byte & 0x7f) * 128 ** this.#lengthBytes;
      this.#lengthBytes++;
      if (byte & 0x80) {
        if (this.#lengthBytes === 4) return -1;
        continue;
      }
      const size = 1 + this.#lengthBytes + this.#length;
      if (size > this.#maxBytes) return size;
      this.#bodyLeft = this.#length;
      this.#phase = this.#length === 0 ? "type" : "body";
    }
    return null;
  }
}

export class PacketTooLarge extends Error {
  readonly announcedBytes: number;
  constructor(announcedBytes: number, maxBytes: number) {
    super(
      announcedBytes < 0
        ? "malformed Remaining Length"
        : `packet of ${announcedBytes} bytes exceeds the ${maxBytes}-byte limit`,
    );
    this.announcedBytes = announcedBytes;
  }
}

/**
 * Wraps a connection for aedes, whose parser (mqtt-packet) buffers a whole packet, up to 256 MB,
 * before it looks at it: bytes pass through unchanged, but the connection is destroyed as soon as
 * a fixed header announces a packet over `maxBytes`, before its body is read or buffered.
 * [MQTT-4.8.0-1] a protocol violation closes the Network Connection.
 *
 * Writes are gathered for the rest of the event loop's turn and leave together (one write):
 * mqtt-packet writes each packet as several small chunks, and aedes answers each of an agent's
 * publishes with a PUBACK and, after the commit, the application ack. Written one by one, those
 * syscalls were a quarter of the server's CPU under MQTT ingest (measured: issue 13).
 */
export class PacketSizeGuard extends Duplex {
  readonly #inner: Duplex;
  #pending: Buffer[] = [];
  #flushQueued = false;
  /** The inner stream's buffer is full: further writes wait for its drain. */
  #congested = false;

  constructor(inner: Duplex, maxBytes: number) {
    super({ allowHalfOpen: false });
    this.#inner = inner;
    const boundaries = new PacketBoundaries(maxBytes);
    inner.on("data", (chunk: Buffer) => {
      if (this.destroyed) return;
      const oversized = boundaries.feed(chunk);
      if (oversized !== null) {
        this.destroy(new PacketTooLarge(oversized, maxBytes));
        return;
      }
      if (!this.push(chunk)) inner.pause();
    });
    inner.once("end", () => this.push(null));
    inner.once("error", (err) => this.destroy(err));
    inner.once("close", () => this.destroy());
  }

  override _read(): void {
    this.#inner.resume();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (err?: Error | null) => void): void {
    this.#pending.push(chunk);
    this.#written(callback);
  }

  /** mqtt-packet corks the stream while it writes a packet's chunks: they come here together. */
  override _writev(chunks: { chunk: Buffer }[], callback: (err?: Error | null) => void): void {
    for (const { chunk } of chunks) this.#pending.push(chunk);
    this.#written(callback);
  }

  #written(callback: (err?: Error | null) => void): void {
    if (!this.#flushQueued) {
      this.#flushQueued = true;
      setImmediate(this.#flush);
    }
    if (this.#congested) this.#inner.once("drain", () => callback());
    else callback();
  }

  override _final(callback: (err?: Error | null) => void): void {
    this.#flush();
    this.#inner.end(() => callback());
  }

  readonly #flush = (): void => {
    this.#flushQueued = false;
    const chunks = this.#pending;
    if (chunks.length === 0) return;
    this.#pending = [];
    const inner = this.#inner;
    if (inner.destroyed) return;
    // One buffer, not a writev of hundreds of small chunks: each chunk cost the socket's stream
    // machinery a write request of its own, and the kernel an iovec.
    const room = inner.write(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
    if (!room && !this.#congested) {
      this.#congested = true;
      inner.once("drain", () => {
        this.#congested = false;
      });
    }
  };

  override _destroy(err: Error | null, callback: (err?: Error | null) => void): void {
    // What was written before the close still goes (a CONNACK refusing the connection, say).
    this.#flush();
    this.#inner.destroy();
    callback(err);
  }
}
