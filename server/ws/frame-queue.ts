const INITIAL_SLOTS = 16;

/**
 * A bounded FIFO of encoded frames for one slow WebSocket client. When it is full (by count or by
 * bytes) the OLDEST frame is dropped: live telemetry is superseded by newer readings, so the newest
 * data is what a lagging client should still get. `dropped` counts the losses until taken.
 */
export class FrameQueue {
  /** A ring that starts small and doubles up to maxFrames: most clients never queue much. */
  #slots: (Buffer | undefined)[];
  readonly #maxFrames: number;
  readonly #maxBytes: number;
  #head = 0;
  #length = 0;
  #bytes = 0;
  #dropped = 0;

  constructor(maxFrames: number, maxBytes: number) {
    if (!Number.isInteger(maxFrames) || maxFrames < 1) throw new RangeError("maxFrames must be >= 1");
    this.#slots = new Array<Buffer | undefined>(Math.min(maxFrames, INITIAL_SLOTS)).fill(undefined);
    this.#maxFrames = maxFrames;
    this.#maxBytes = maxBytes;
  }

  get length(): number {
    return this.#length;
  }

  get bytes(): number {
    return this.#bytes;
  }

  /** Frames dropped since the last takeDropped(). */
  get dropped(): number {
    return this.#dropped;
  }

  push(frame: Buffer): void {
    // A single frame larger than the byte budget still goes in alone: dropping every frame of
    // that size would starve the client for good.
    while (
      this.#length > 0 &&
      (this.#length === this.#maxFrames || this.#bytes + frame.length > this.#maxBytes)
    ) {
      this.#dropOldest();
    }
    if (this.#length === this.#slots.length) this.#grow();
    const tail = (this.#head + this.#length) % this.#slots.length;
    this.#slots[tail] = frame;
    this.#length++;
    this.#bytes += frame.length;
  }

  shift(): Buffer | undefined {
    if (this.#length === 0) return undefined;
    const frame = this.#slots[this.#head];
    this.#slots[this.#head] = undefined;
    this.#head = (this.#head + 1) % this.#slots.length;
    this.#length--;
    if (frame) this.#bytes -= frame.length;
    return frame;
  }

  /** The drop count, reset to zero (the client is told once per gap). */
  takeDropped(): number {
    const n = this.#dropped;
    this.#dropped = 0;
    return n;
  }

  clear(): void {
    this.#slots.fill(undefined);
    this.#head = 0;
    this.#length = 0;
    this.#bytes = 0;
  }

  #grow(): void {
    const next = new Array<Buffer | undefined>(Math.min(this.#maxFrames, this.#slots.length * 2)).fill(
      undefined,
    );
    for (let i = 0; i < this.#length; i++) next[i] = this.#slots[(this.#head + i) % this.#slots.length];
    this.#slots = next;
    this.#head = 0;
  }

  #dropOldest(): void {
    this.shift();
    this.#dropped++;
  }
}
