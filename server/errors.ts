/**
 * The errors services and stores throw. Each has a stable code (the `error` field of every error
 * body) and a message for people; http/errors.ts maps a code to its HTTP status, and nothing here
 * knows about HTTP.
 */
export const ERROR_CODES = [
  "BadRequest",
  "ValidationFailed",
  "Unauthorized",
  "InvalidCredentials",
  "TokenExpired",
  "TwoFactorRequired",
  "TwoFactorFailed",
  "RecoveryCodeInvalid",
  "AccountLocked",
  "InvalidEnrollmentCode",
  "EnrollmentCodeUsed",
  "EnrollmentCodeExpired",
  "EnrollmentCodeRevoked",
  "Forbidden",
  "RegistrationDisabled",
  "NotFound",
  "Conflict",
  "AlreadyConfigured",
  "AgentOffline",
  "PayloadTooLarge",
  "UnsupportedMediaType",
  "RangeNotSatisfiable",
  "UpgradeRequired",
  "RateLimited",
  "Internal",
  "Unavailable",
  "AgentNotBuilt",
  "AgentBuilding",
  "AgentTimeout",
] as const;

export type ErrorCodeName = (typeof ERROR_CODES)[number];

export type ErrorBody = { error: ErrorCodeName; message: string } & Record<string, unknown>;

export class AppError extends Error {
  readonly code: ErrorCodeName;
  /** Fields added to the body beside error and message (e.g. requires_2fa, field). */
  readonly extra: Record<string, unknown>;
  /** When trying again may succeed: after this many seconds (rate limits, a build under way). */
  readonly retryAfterSeconds: number | undefined;

  constructor(
    code: ErrorCodeName,
    message: string,
    options: { extra?: Record<string, unknown>; retryAfterSeconds?: number } = {},
  ) {
    super(message);
    this.code = code;
    this.extra = options.extra ?? {};
    this.retryAfterSeconds = options.retryAfterSeconds;
  }

  body(): ErrorBody {
    return { error: this.code, message: this.message, ...this.extra };
  }
}

export const notFound = (what: string) => new AppError("NotFound", `${what} not found`);
export const forbidden = (message = "your role does not allow this") => new AppError("Forbidden", message);
export const badRequest = (message: string) => new AppError("ValidationFailed", message);
