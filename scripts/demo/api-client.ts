import { z } from "zod";

/** A response the provisioning did not expect; its message carries the API's `{error, message}`. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string | undefined;

  constructor(what: string, status: number, body: string) {
    const parsed = z.object({ error: z.string(), message: z.string().optional() }).safeParse(safeJson(body));
    const detail = parsed.success ? `${parsed.data.error}: ${parsed.data.message ?? ""}` : body.slice(0, 300);
    super(`${what}: HTTP ${status} ${detail}`);
    this.status = status;
    this.code = parsed.success ? parsed.data.error : undefined;
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

type Method = "GET" | "POST" | "PUT" | "PATCH";

/**
 * The few REST calls the demo provisioning makes, over real HTTP like any other client. Every
 * response body is checked against the fields it needs, so a changed API fails loudly here.
 */
export class CaudalApi {
  readonly #base: string;
  readonly #signal: AbortSignal | undefined;
  token: string | undefined;

  constructor(baseUrl: string, signal?: AbortSignal) {
    this.#base = baseUrl;
    this.#signal = signal;
  }

  /** Calls `path` and parses the body when the status is `expected`; throws ApiError otherwise. */
  async call<T>(
    method: Method,
    path: string,
    expected: number,
    schema: z.ZodType<T>,
    body?: unknown,
  ): Promise<T> {
    const res = await this.raw(method, path, body);
    if (res.status !== expected) throw new ApiError(`${method} ${path}`, res.status, res.text);
    const parsed = schema.safeParse(safeJson(res.text));
    if (!parsed.success) {
      throw new Error(`${method} ${path}: unexpected response body: ${z.prettifyError(parsed.error)}`);
    }
    return parsed.data;
  }

  async raw(method: Method, path: string, body?: unknown): Promise<{ status: number; text: string }> {
    const headers: Record<string, string> = {};
    if (body !== undefined) headers["content-type"] = "application/json";
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    const res = await fetch(`${this.#base}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: this.#signal
        ? AbortSignal.any([this.#signal, AbortSignal.timeout(15_000)])
        : AbortSignal.timeout(15_000),
    });
    return { status: res.status, text: await res.text() };
  }
}
