import type { Client } from "aedes";

type Open = { bytes: number; paused: (() => void)[] };

/**
 * How much of one connection's telemetry may be waiting for its commit while aedes reads on.
 *
 * aedes reads a connection's next packets only once every packet of its last read is handled, and
 * an agent's batch is handled when it is committed (group commit: a few ms later) and acknowledged.
 * An agent with many batches unanswered then had one socket read's worth in each commit, and the
 * server sat idle between. The order of the commits and acks does not depend on that wait (each
 * batch joins the commit queue as it is read), so aedes may read on at once; this bounds what
 * waits: past `maxBytes` of payload per connection, reading stops until commits catch up, and
 * TCP's own flow control holds the agent back.
 */
export class IngestWindow {
  readonly #maxBytes: number;
  readonly #open = new WeakMap<Client, Open>();

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  /**
   * `work` handles one message of `bytes` from `client`; `readOn` lets aedes read the connection's
   * next packets: called at once while the connection is within its window (a lone message always
   * is), else once enough of its earlier work has finished.
   */
  admit(client: Client, bytes: number, work: Promise<unknown>, readOn: () => void): void {
    let open = this.#open.get(client);
    if (!open) {
      open = { bytes: 0, paused: [] };
      this.#open.set(client, open);
    }
    const state = open;
    state.bytes += bytes;
    if (state.bytes <= this.#maxBytes || state.bytes === bytes) readOn();
    else state.paused.push(readOn);
    const finished = () => {
      state.bytes -= bytes;
      while (state.paused.length > 0 && state.bytes <= this.#maxBytes) state.paused.shift()?.();
    };
    work.then(finished, finished);
  }
}
