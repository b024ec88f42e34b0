import type { Role } from "../../../shared/permissions.ts";
import { apiErrorOf } from "./api-error.ts";
import type { LoginResponse, ProjectSummary } from "./types.ts";

export type SessionState = {
  /** The access token: in memory only (never in storage or a URL but the stream's, spec §5.3). */
  token: string;
  role: Role;
  projects: ProjectSummary[];
  expiresAt: number;
};

export type LoginInput = { email: string; password: string; totp_code?: string; recovery_code?: string };

/** Why a session ended: the router shows it on the sign-in page. */
export type EndReason = "signed_out" | "expired";

type Listener = (state: SessionState | null, reason: EndReason | null) => void;

/** Renew this long before the access token expires. */
const RENEW_BEFORE_MS = 60_000;

/**
 * The signed-in user. The refresh token lives only in the API's HttpOnly cookie (path /api/auth),
 * so a reload restores the session through POST /api/auth/refresh and nothing else is stored.
 */
export class Session {
  #state: SessionState | null = null;
  #refreshing: Promise<boolean> | null = null;
  #timer: ReturnType<typeof setTimeout> | undefined;
  readonly #listeners = new Set<Listener>();

  get state(): SessionState | null {
    return this.#state;
  }

  onChange(listener: Listener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** POST /api/auth/login; throws ApiError (TwoFactorRequired with requires_2fa, TwoFactorFailed, AccountLocked…). */
  async login(input: LoginInput): Promise<void> {
    const res = await fetch("/api/auth/login", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(input),
    });
    if (!res.ok) throw await apiErrorOf(res);
    this.#accept((await res.json()) as LoginResponse);
  }

  /** A new access token from the refresh cookie; false (and signed out) when the cookie no longer works. */
  refresh(): Promise<boolean> {
    this.#refreshing ??= this.#refresh().finally(() => {
      this.#refreshing = null;
    });
    return this.#refreshing;
  }

  async #refresh(): Promise<boolean> {
    let res: Response;
    try {
      res = await fetch("/api/auth/refresh", { method: "POST" });
    } catch {
      // Offline for a moment: keep the session; the next call tries again.
      return this.#state !== null;
    }
    if (!res.ok) {
      this.#end(this.#state ? "expired" : null);
      return false;
    }
    this.#accept((await res.json()) as LoginResponse);
    return true;
  }

  /** POST /api/auth/logout with the bearer token: the API revokes both tokens and clears the cookie. */
  async logout(): Promise<void> {
    const token = this.#state?.token;
    if (token) {
      await fetch("/api/auth/logout", {
        method: "POST",
        headers: { authorization: `Bearer ${token}` },
      }).catch(() => undefined);
    }
    this.#end("signed_out");
  }

  /** The API refused the token and the refresh cookie: back to sign-in. */
  expire(): void {
    this.#end("expired");
  }

  #accept(body: LoginResponse): void {
    this.#state = {
      token: body.token,
      role: body.role,
      projects: body.projects,
      expiresAt: Date.now() + body.expires_in * 1000,
    };
    clearTimeout(this.#timer);
    this.#timer = setTimeout(
      () => void this.refresh(),
      Math.max(5_000, body.expires_in * 1000 - RENEW_BEFORE_MS),
    );
    for (const listener of this.#listeners) listener(this.#state, null);
  }

  #end(reason: EndReason | null): void {
    clearTimeout(this.#timer);
    const had = this.#state !== null;
    this.#state = null;
    if (had || reason === "signed_out") for (const listener of this.#listeners) listener(null, reason);
  }
}
