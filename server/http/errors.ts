import type { ContentfulStatusCode } from "hono/utils/http-status";
import { AppError, type ErrorCodeName } from "../errors.ts";

/** The HTTP status of each error code (server/errors.ts). */
export const ErrorCode = {
  BadRequest: 400,
  ValidationFailed: 400,
  Unauthorized: 401,
  InvalidCredentials: 401,
  TokenExpired: 401,
  TwoFactorRequired: 401,
  TwoFactorFailed: 401,
  RecoveryCodeInvalid: 401,
  AccountLocked: 401,
  InvalidEnrollmentCode: 401,
  EnrollmentCodeUsed: 401,
  EnrollmentCodeExpired: 401,
  EnrollmentCodeRevoked: 401,
  Forbidden: 403,
  RegistrationDisabled: 403,
  NotFound: 404,
  Conflict: 409,
  AlreadyConfigured: 409,
  AgentOffline: 409,
  PayloadTooLarge: 413,
  UnsupportedMediaType: 415,
  RangeNotSatisfiable: 416,
  UpgradeRequired: 426,
  RateLimited: 429,
  Internal: 500,
  Unavailable: 503,
  AgentNotBuilt: 503,
  AgentBuilding: 503,
  AgentTimeout: 504,
} as const satisfies Record<ErrorCodeName, ContentfulStatusCode>;

/** An error raised by the HTTP layer itself, with headers of its own (Content-Range, Connection). */
export class HttpError extends AppError {
  readonly headers: Record<string, string>;

  constructor(code: ErrorCodeName, message: string, headers: Record<string, string>) {
    super(code, message);
    this.headers = headers;
  }
}

export function statusOf(err: AppError): ContentfulStatusCode {
  return ErrorCode[err.code];
}

/**
 * The response headers an error carries: Retry-After when the error says when to try again; on a
 * 426 the Upgrade header RFC 9110 §15.5.22 requires (every upgrade Caudal answers is a WebSocket).
 */
export function errorHeaders(err: AppError): Record<string, string> {
  const headers: Record<string, string> =
    err.code === "UpgradeRequired" ? { Upgrade: "websocket", Connection: "Upgrade" } : {};
  if (err.retryAfterSeconds !== undefined) headers["Retry-After"] = String(err.retryAfterSeconds);
  return err instanceof HttpError ? { ...headers, ...err.headers } : headers;
}
