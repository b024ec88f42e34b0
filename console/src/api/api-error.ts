/** A refused API call: the status and the API's `{error, message}`. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly body: Record<string, unknown>;
  readonly retryAfterSeconds: number | null;

  constructor(status: number, body: Record<string, unknown>, retryAfter: string | null) {
    const message = typeof body.message === "string" ? body.message : `HTTP ${status}`;
    super(message);
    this.status = status;
    this.code = typeof body.error === "string" ? body.error : `Http${status}`;
    this.body = body;
    const seconds = retryAfter === null ? Number.NaN : Number(retryAfter);
    this.retryAfterSeconds = Number.isFinite(seconds) ? seconds : null;
  }
}

export async function apiErrorOf(res: Response): Promise<ApiError> {
  let body: Record<string, unknown> = {};
  try {
    const parsed: unknown = await res.json();
    if (typeof parsed === "object" && parsed !== null) body = parsed as Record<string, unknown>;
  } catch {
    // Not JSON (a proxy's page): the status says enough.
  }
  return new ApiError(res.status, body, res.headers.get("retry-after"));
}
