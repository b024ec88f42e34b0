import { generateSecret, generateSync, generateURI, verifySync } from "otplib";

// RFC 6238: SHA-1, 6 digits, 30-second steps (otplib's defaults, stated here so they cannot drift).
const PERIOD = 30;
const ALGORITHM = "sha1";
const DIGITS = 6;

export function newTotpSecret(): string {
  return generateSecret();
}

export function totpUri(secret: string, email: string): string {
  return generateURI({
    issuer: "Caudal",
    label: email,
    secret,
    algorithm: ALGORITHM,
    digits: DIGITS,
    period: PERIOD,
  });
}

/** The code for the step containing `at` (tests and tooling). */
export function totpCode(secret: string, at: Date): string {
  return generateSync({
    secret,
    epoch: Math.floor(at.getTime() / 1000),
    algorithm: ALGORITHM,
    digits: DIGITS,
    period: PERIOD,
  });
}

/** The RFC 6238 time step containing `at`. */
export function totpStep(at: Date): number {
  return Math.floor(at.getTime() / 1000 / PERIOD);
}

/**
 * Verifies `code` within ±1 step of `now` (RFC 6238 §5.2) and only for a step strictly after
 * `lastStep` (replay protection, spec §5.7). Returns the accepted step or null.
 */
export function verifyTotp(secret: string, code: string, now: Date, lastStep: number | null): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  // otplib throws when afterTimeStep lies beyond the window (the clock stepped back after a
  // code of a later step was used): no step in the window can then be accepted anyway.
  if (lastStep !== null && lastStep >= totpStep(now) + 1) return null;
  const result = verifySync({
    secret,
    token: code,
    epoch: Math.floor(now.getTime() / 1000),
    epochTolerance: PERIOD,
    algorithm: ALGORITHM,
    digits: DIGITS,
    period: PERIOD,
    ...(lastStep === null ? {} : { afterTimeStep: lastStep }),
  });
  return result.valid && "timeStep" in result ? result.timeStep : null;
}
