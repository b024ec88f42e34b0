import type { ContentfulStatusCode } from "hono/utils/http-status";

/** Stable error codes: the `error` field of every error body. */
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
  AgentTimeout: 504,
} as const satisfies Record<string, ContentfulStatusCode>;

export type ErrorCodeName = keyof typeof ErrorCode;

export type ErrorBody = { error: ErrorCodeName; message: string } & Record<string, unknown>;

export class AppError extends Error {
  readonly code: ErrorCodeName;
  readonly status: ContentfulStatusCode;
  readonly extra: Record<string, unknown>;
  readonly headers: Record<string, string>;

  constructor(
    code: ErrorCodeName,
    message: string,
    options: { extra?: Record<string, unknown>; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.code = code;
    this.status = ErrorCode[code];
    this.extra = options.extra ?? {};
    this.headers = options.headers ?? {};
  }

  body(): ErrorBody {
    return { error: this.code, message: this.message, ...this.extra };
  }
}

export const notFound = (what: string) => new AppError("NotFound", `${what} not found`);
export const forbidden = (message = "your role does not allow this") => new AppError("Forbidden", message);
export const badRequest = (message: string) => new AppError("ValidationFailed", message);
