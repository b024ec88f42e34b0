/** How the agent's MQTT link to the server stands (shown by /status, /health and the local page). */
export type LinkStateName = "connecting" | "connected" | "disconnected" | "refused";

/** The broker refused the agent's credentials: what it answered, since when, how often. */
export type Refusal = {
  /** The CONNACK code: 4 or 5 (MQTT 3.1.1 §3.2.2.3), 0x86 or 0x87 (MQTT 5 §3.2.2.2). */
  code: number;
  /** The broker's answer as the client library words it ("Bad username or password"). */
  answer: string;
  firstAt: number;
  attempts: number;
  nextAttemptAt: number | null;
};

export type LinkSnapshot = {
  state: LinkStateName;
  since: number;
  lastConnectedAt: number | null;
  /** When the last connection ended (the server closes it at once when the token is replaced). */
  lostAt: number | null;
  refusal: Refusal | null;
  /** In plain words, why the link is down and what to do; null while connected. */
  reason: string | null;
};

/**
 * Reconnection pace. A network failure is retried quickly; refused credentials are retried slowly,
 * doubling from `refusedMinMs` to `refusedMaxMs` (they change only when someone re-enrolls the agent
 * or restores its token), and are logged again only every `refusedLogEveryMs`.
 */
export type SyncRetry = {
  reconnectMs: number;
  refusedMinMs: number;
  refusedMaxMs: number;
  refusedLogEveryMs: number;
};

export const RETRY: SyncRetry = {
  reconnectMs: 2_000,
  refusedMinMs: 15_000,
  refusedMaxMs: 5 * 60_000,
  refusedLogEveryMs: 60 * 60_000,
};

/** [MQTT-3.2.2-3] 4 bad user name or password, 5 not authorized; MQTT 5: 0x86, 0x87. */
const CREDENTIAL_CODES = new Set([4, 5, 0x86, 0x87]);

/** True when a CONNACK code means the broker refused who the agent is, not that it is unavailable. */
export function refusesCredentials(code: unknown): code is number {
  return typeof code === "number" && CREDENTIAL_CODES.has(code);
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Why the broker keeps refusing this agent, in the words an operator acts on. The broker (MQTT
 * 3.1.1) answers only a code, and the server keeps no trace of a replaced token, so the agent says
 * what it knows: when it was first refused, and when the server last closed its connection (which
 * it does at once when the project's agent token is replaced).
 */
export function refusalReason(refusal: Refusal, lostAt: number | null): string {
  const closed =
    lostAt === null
      ? ""
      : `; the server closed its last connection at ${iso(lostAt)}, which it does when the project's agent token is replaced`;
  return (
    `the server has refused this agent's credentials ("${refusal.answer}") since ${iso(refusal.firstAt)}${closed}. ` +
    "Its token was most likely replaced by another enrollment on this project (or a new agent token was issued): " +
    "re-enroll this agent with a new enrollment code. Readings stay buffered here and are sent once the server accepts it again"
  );
}

/**
 * The link's state, kept in this process (the truth is the broker's answer to the last attempt).
 * `#since` is when the state last changed name; a refusal keeps the time of its first attempt.
 */
export class LinkState {
  #state: LinkStateName = "connecting";
  #since: number;
  #lastConnectedAt: number | null = null;
  #lostAt: number | null = null;
  #refusal: Refusal | null = null;
  #networkError: string | null = null;
  /** When the refusal was last logged: repeated only every refusedLogEveryMs, not per attempt. */
  #refusalLoggedAt = 0;

  constructor(now: number) {
    this.#since = now;
  }

  get state(): LinkStateName {
    return this.#state;
  }

  get refusal(): Refusal | null {
    return this.#refusal;
  }

  #enter(state: LinkStateName, now: number): void {
    if (this.#state !== state) this.#since = now;
    this.#state = state;
  }

  /** The broker accepted the credentials. Returns the refusal this ends, if any. */
  connected(now: number): Refusal | null {
    const ended = this.#refusal;
    this.#refusal = null;
    this.#networkError = null;
    this.#lastConnectedAt = now;
    this.#enter("connected", now);
    return ended;
  }

  /** The connection closed. A refused link stays refused until the broker accepts it. */
  closed(now: number): void {
    if (this.#state === "connected") this.#lostAt = now;
    if (this.#state !== "refused") this.#enter("disconnected", now);
  }

  /** The broker refused the credentials. True on the first refusal of a run of them. */
  refused(code: number, answer: string, now: number, nextAttemptAt: number): boolean {
    const first = this.#refusal === null;
    this.#refusal = {
      code,
      answer,
      firstAt: this.#refusal?.firstAt ?? now,
      attempts: (this.#refusal?.attempts ?? 0) + 1,
      nextAttemptAt,
    };
    this.#enter("refused", now);
    return first;
  }

  /**
   * A refused CONNECT: records it, and returns the wait before the next attempt (doubling from
   * refusedMinMs to refusedMaxMs) and the line to log, if it is time for one (the first refusal,
   * then one every refusedLogEveryMs).
   */
  refusedAttempt(
    code: number,
    message: string,
    now: number,
    retry: SyncRetry,
  ): { delay: number; log: string | null } {
    const attempts = (this.#refusal?.attempts ?? 0) + 1;
    const delay = Math.min(retry.refusedMaxMs, retry.refusedMinMs * 2 ** Math.min(attempts - 1, 30));
    const first = this.refused(code, message.replace(/^Connection refused: /, ""), now, now + delay);
    if (!first && now - this.#refusalLoggedAt < retry.refusedLogEveryMs) return { delay, log: null };
    this.#refusalLoggedAt = now;
    const again = first ? "" : ` (${attempts} attempts refused so far)`;
    return { delay, log: `${this.snapshot().reason}${again}; next attempt in ${Math.round(delay / 1000)} s` };
  }

  /** A network error. True when it differs from the last one (so a repeated one is logged once). */
  networkError(message: string): boolean {
    const fresh = message !== this.#networkError;
    this.#networkError = message;
    return fresh;
  }

  snapshot(): LinkSnapshot {
    const refusal = this.#refusal ? { ...this.#refusal } : null;
    let reason: string | null = null;
    if (refusal) reason = refusalReason(refusal, this.#lostAt);
    else if (this.#state !== "connected")
      reason = this.#networkError
        ? `the server cannot be reached (${this.#networkError}); readings stay buffered here and are sent when the link returns`
        : null;
    return {
      state: this.#state,
      since: this.#since,
      lastConnectedAt: this.#lastConnectedAt,
      lostAt: this.#lostAt,
      refusal,
      reason,
    };
  }
}
