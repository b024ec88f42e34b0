/**
 * Fixed-window counter per key (a client address, or an address and an email). Memory is bounded:
 * expired windows are swept whenever the map grows past `maxKeys`.
 */
export class RateLimiter {
  readonly #limit: number;
  readonly #windowMs: number;
  readonly #maxKeys: number;
  readonly #windows = new Map<string, { start: number; count: number }>();

  constructor(limit: number, windowMs = 60_000, maxKeys = 100_000) {
    this.#limit = limit;
    this.#windowMs = windowMs;
    this.#maxKeys = maxKeys;
  }

  /** Counts an attempt. Returns the seconds to wait when over the limit, else 0. */
  hit(key: string, now: number): number {
    let w = this.#windows.get(key);
    if (!w || now - w.start >= this.#windowMs) {
      if (this.#windows.size >= this.#maxKeys) this.#sweep(now);
      w = { start: now, count: 0 };
      this.#windows.set(key, w);
    }
    w.count += 1;
    if (w.count <= this.#limit) return 0;
    return Math.max(1, Math.ceil((w.start + this.#windowMs - now) / 1000));
  }

  #sweep(now: number): void {
    for (const [k, w] of this.#windows) if (now - w.start >= this.#windowMs) this.#windows.delete(k);
    if (this.#windows.size >= this.#maxKeys) this.#windows.clear();
  }
}
