import { type ApiError, apiErrorOf } from "./api-error.ts";
import type { Session } from "./session.ts";

export type Query = Record<string, string | number | undefined | readonly string[]>;

/**
 * The 401s that mean the access token no longer works. Other 401s are answers to what was sent
 * (TwoFactorFailed for a wrong code, InvalidCredentials for a wrong password) and end nothing.
 */
const TOKEN_REFUSED = new Set(["Unauthorized", "TokenExpired"]);

async function tokenRefused(res: Response): Promise<boolean> {
  if (res.status !== 401) return false;
  const body: unknown = await res
    .clone()
    .json()
    .catch(() => null);
  const code = typeof body === "object" && body !== null ? Reflect.get(body, "error") : undefined;
  return typeof code !== "string" || TOKEN_REFUSED.has(code);
}

export function withQuery(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const v of value) params.append(name, v);
    else params.append(name, String(value));
  }
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

/**
 * Calls the documented API with the session's bearer token, on every request, so a cookie alone
 * never suffices (CSRF). An expired token is renewed through the refresh cookie once and the call
 * repeated; when that fails the session ends and the router goes to sign-in.
 */
export class ApiClient {
  readonly #session: Session;

  constructor(session: Session) {
    this.#session = session;
  }

  async #send(method: string, path: string, body: unknown, accept: string): Promise<Response> {
    for (let attempt = 0; ; attempt++) {
      const token = this.#session.state?.token;
      const headers: Record<string, string> = { accept };
      if (token) headers.authorization = `Bearer ${token}`;
      if (body !== undefined) headers["content-type"] = "application/json";
      const res = await fetch(path, {
        method,
        headers,
        body: body === undefined ? null : JSON.stringify(body),
        // The refresh cookie's path is /api/auth: nothing else ever carries it.
        credentials: "same-origin",
      });
      if (!token || !(await tokenRefused(res))) return res;
      if (attempt > 0) {
        this.#session.expire();
        return res;
      }
      if (!(await this.#session.refresh())) return res;
    }
  }

  async request<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await this.#send(method, path, body, "application/json");
    if (!res.ok) throw await apiErrorOf(res);
    if (res.status === 204) return undefined as T;
    return (await res.json()) as T;
  }

  get<T>(path: string, query?: Query): Promise<T> {
    return this.request<T>("GET", withQuery(path, query));
  }

  post<T>(path: string, body?: unknown): Promise<T> {
    return this.request<T>("POST", path, body);
  }

  put<T>(path: string, body: unknown): Promise<T> {
    return this.request<T>("PUT", path, body);
  }

  /**
   * A file (CSV export, installer) fetched with the bearer token: no token ever goes into a link.
   * `status` tells a 200 from a 202 that answers "not ready yet" (GET …/installer) with JSON.
   */
  async download(
    path: string,
    query: Query,
    accept: string,
  ): Promise<{ blob: Blob; filename: string; status: number }> {
    const res = await this.#send("GET", withQuery(path, query), undefined, accept);
    if (!res.ok) throw await apiErrorOf(res);
    const disposition = res.headers.get("content-disposition") ?? "";
    const filename = /filename="([^"]+)"/.exec(disposition)?.[1] ?? "export.csv";
    return { blob: await res.blob(), filename, status: res.status };
  }
}

export type { ApiError };
