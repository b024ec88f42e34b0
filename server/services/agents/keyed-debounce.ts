/**
 * Runs `fire(key)` once `delayMs` after the last `touch(key)` of a burst: each touch restarts the
 * key's timer. `clear()` drops every pending run (the owner's stop()).
 */
export class KeyedDebounce {
  readonly #delayMs: number;
  readonly #fire: (key: string) => void;
  readonly #timers = new Map<string, NodeJS.Timeout>();

  constructor(delayMs: number, fire: (key: string) => void) {
    this.#delayMs = delayMs;
    this.#fire = fire;
  }

  touch(key: string): void {
    clearTimeout(this.#timers.get(key));
    const timer = setTimeout(() => {
      this.#timers.delete(key);
      this.#fire(key);
    }, this.#delayMs);
    // A pending deployment must not keep the process alive; stop() clears it anyway.
    timer.unref();
    this.#timers.set(key, timer);
  }

  get pending(): number {
    return this.#timers.size;
  }

  clear(): void {
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
  }
}
