/**
 * Refresh token reuse grace period: a refresh token presented again within this long after its
 * rotation (two browser tabs refreshing at once) gets the same successor instead of counting as
 * reuse, as Auth0's reuse interval and Okta's grace period do.
 */
export const REFRESH_REUSE_GRACE_MS = 5_000;

export type Rotation = { accessToken: string; refreshToken: string; sessionId: string; userId: string };

type Entry = { rotation: Promise<Rotation>; successorHash: string; expiresAt: number };

/**
 * The successors of recently rotated refresh tokens, keyed by the rotated token's hash, for
 * REFRESH_REUSE_GRACE_MS. In memory only: the database keeps refresh tokens hashed, and the
 * successor's plaintext must not be stored. After a restart a replay finds nothing and is refused.
 */
export class RefreshGrace {
  readonly #entries = new Map<string, Entry>();

  /** Call in the same tick as the rotation commits, so a concurrent replay always finds it. */
  remember(rotatedHash: string, successorHash: string, rotation: Promise<Rotation>, now: number): void {
    this.#sweep(now);
    this.#entries.set(rotatedHash, { rotation, successorHash, expiresAt: now + REFRESH_REUSE_GRACE_MS });
  }

  /**
   * The successor of `rotatedHash` while its grace lasts. When that successor was rotated in turn
   * (within its own grace), the newest one: handing out a token already rotated would make its next
   * use look like reuse.
   */
  successorOf(rotatedHash: string, now: number): Promise<Rotation> | undefined {
    let entry = this.#live(rotatedHash, now);
    if (!entry) return undefined;
    for (
      let newer = this.#live(entry.successorHash, now);
      newer;
      newer = this.#live(newer.successorHash, now)
    ) {
      entry = newer;
    }
    return entry.rotation;
  }

  #live(hash: string, now: number): Entry | undefined {
    const entry = this.#entries.get(hash);
    return entry && now <= entry.expiresAt ? entry : undefined;
  }

  /** Entries expire in insertion order (one fixed TTL), so the sweep stops at the first live one. */
  #sweep(now: number): void {
    for (const [hash, entry] of this.#entries) {
      if (now <= entry.expiresAt) break;
      this.#entries.delete(hash);
    }
  }
}
