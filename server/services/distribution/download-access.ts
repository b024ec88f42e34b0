import { AppError } from "../../errors.ts";
import { ENROLLMENT_CODE_PREFIX, enrollmentCodeState } from "../agents/enrollment-codes.ts";
import type { ServiceContext } from "../context.ts";

/** A bearer credential that is an enrollment code (`cen_…`) rather than an access token. */
export function isEnrollmentCode(credential: string): boolean {
  return credential.startsWith(ENROLLMENT_CODE_PREFIX);
}

/**
 * An enrollment code downloads the agent binary while it is active, and still once used: the
 * binary holds no secret, and re-running an install script (an upgrade) downloads it again. An
 * expired or revoked code is refused, so an install script made before a revocation stops working.
 */
export async function assertCodeMayDownload(ctx: ServiceContext, code: string): Promise<void> {
  const state = await enrollmentCodeState(ctx, code);
  const ask = "ask a supervisor for a new install script";
  if (!state) throw new AppError("InvalidEnrollmentCode", "the enrollment code is not valid");
  if (state.status === "expired")
    throw new AppError("EnrollmentCodeExpired", `this enrollment code has expired; ${ask}`);
  if (state.status === "revoked")
    throw new AppError("EnrollmentCodeRevoked", `this enrollment code was revoked; ${ask}`);
}
