import type { LocalAlarmEntry, LocalStatus } from "../../shared/agent-local-api.ts";

/** What the page shows: the agent's last answers, and whether it still answers. */
export type PageState = {
  status: LocalStatus | null;
  alarms: LocalAlarmEntry[] | null;
  /** When the last answers arrived (ms since the epoch), or null before the first. */
  updatedAt: number | null;
  /** False once a poll failed, until one succeeds again. */
  reachable: boolean;
};

/** A poll that hangs (a stopped agent process, a dead network) counts as failed after this long. */
const REQUEST_TIMEOUT_MS = 5_000;

async function getJson<T>(path: string): Promise<T> {
  const res = await fetch(path, {
    cache: "no-store",
    headers: { accept: "application/json" },
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  if (!res.ok) throw new Error(`${path}: HTTP ${res.status}`);
  return (await res.json()) as T;
}

/**
 * Polls the agent's local API (GET /status and /alarms, the same origin) every `intervalMs`,
 * from the end of one poll to the start of the next, so a slow agent is never asked twice at once.
 * The local API has no stream: polling is all it offers, and all the page needs.
 */
export class LocalApiPoller {
  readonly #intervalMs: number;
  readonly #onUpdate: (state: PageState) => void;
  #state: PageState = { status: null, alarms: null, updatedAt: null, reachable: true };
  #timer: ReturnType<typeof setTimeout> | undefined;
  #running = false;

  constructor(intervalMs: number, onUpdate: (state: PageState) => void) {
    this.#intervalMs = intervalMs;
    this.#onUpdate = onUpdate;
  }

  get state(): PageState {
    return this.#state;
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    void this.#poll();
  }

  stop(): void {
    this.#running = false;
    clearTimeout(this.#timer);
  }

  async #poll(): Promise<void> {
    try {
      const [status, alarms] = await Promise.all([
        getJson<LocalStatus>("/status"),
        getJson<LocalAlarmEntry[]>("/alarms"),
      ]);
      this.#state = { status, alarms, updatedAt: Date.now(), reachable: true };
    } catch {
      // The last answers stay on the page, marked as old.
      this.#state = { ...this.#state, reachable: false };
    }
    if (!this.#running) return;
    this.#onUpdate(this.#state);
    this.#timer = setTimeout(() => void this.#poll(), this.#intervalMs);
  }
}
