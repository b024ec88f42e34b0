/** Hands one publish to aedes; `done` is called when aedes has delivered it (possibly at once). */
export type RawSend = (
  topic: string,
  payload: Buffer,
  retain: boolean,
  qos: 0 | 1,
  done: (err?: Error) => void,
) => void;

type Item = {
  topic: string;
  payload: Buffer;
  retain: boolean;
  qos: 0 | 1;
  resolve: () => void;
  reject: (err: Error) => void;
};

/** A FIFO of publishes read from a moving head, compacted now and then (shift() on 10,000 items is O(n) each). */
class Fifo {
  #items: (Item | undefined)[] = [];
  #head = 0;

  get length(): number {
    return this.#items.length - this.#head;
  }

  push(item: Item): void {
    this.#items.push(item);
  }

  shift(): Item | undefined {
    const item = this.#items[this.#head];
    if (item === undefined) return undefined;
    this.#items[this.#head] = undefined;
    this.#head += 1;
    if (this.#head > 1_024 && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    return item;
  }
}

/**
 * The server's own bulk publishes (live values, the unified namespace, Sparkplug) into aedes, at
 * most `limit` at a time, Sparkplug first. aedes' emitter runs at most 100 messages at once and
 * queues the rest; a queued message no one subscribes to completes synchronously and starts the
 * next, so a burst of 10,000 retained values (one flush of a 10,000-variable project) recursed
 * 10,000 frames deep and overflowed the stack (measured with `npm run bench -- sparkplug`).
 * Pacing keeps that queue short; FIFO order within a lane keeps Sparkplug's births before data.
 */
export class PublishPacer {
  readonly #send: RawSend;
  readonly #limit: number;
  readonly #urgent = new Fifo();
  readonly #bulk = new Fifo();
  #inflight = 0;
  #pumping = false;

  constructor(send: RawSend, limit = 32) {
    this.#send = send;
    this.#limit = limit;
  }

  /** Waiting and in flight. */
  get pending(): number {
    return this.#urgent.length + this.#bulk.length + this.#inflight;
  }

  publish(topic: string, payload: Buffer, retain: boolean, qos: 0 | 1, urgent: boolean): Promise<void> {
    return new Promise((resolve, reject) => {
      (urgent ? this.#urgent : this.#bulk).push({ topic, payload, retain, qos, resolve, reject });
      this.#pump();
    });
  }

  #pump(): void {
    // A completion inside send() (synchronous in aedes when no one subscribes) lands here again:
    // the running loop picks up its freed slot instead of recursing.
    if (this.#pumping) return;
    this.#pumping = true;
    try {
      while (this.#inflight < this.#limit) {
        const item = this.#urgent.shift() ?? this.#bulk.shift();
        if (!item) break;
        this.#inflight += 1;
        this.#send(item.topic, item.payload, item.retain, item.qos, (err) => {
          this.#inflight -= 1;
          if (err) item.reject(err);
          else item.resolve();
          this.#pump();
        });
      }
    } finally {
      this.#pumping = false;
    }
  }
}
