import { randomBytes, randomUUID } from "node:crypto";
import type { IdentityStore } from "../../store/ports/identity-store.ts";
import { sha256Hex } from "./tokens.ts";

export const RECOVERY_CODE_COUNT = 10;

// Crockford-style alphabet without look-alikes; 10 characters = 50 bits each.
const ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";

function newCode(): string {
  const bytes = randomBytes(10);
  const chars = Array.from(bytes, (b) => ALPHABET[b % ALPHABET.length]).join("");
  return `${chars.slice(0, 5)}-${chars.slice(5)}`;
}

/** Codes are compared without case, spaces or dashes, so a user may type them loosely. */
export function hashRecoveryCode(code: string): string {
  return sha256Hex(code.replace(/[\s-]/g, "").toUpperCase());
}

/**
 * Replaces every recovery code of the user (call it with the caller's transaction's port);
 * returns the new ones in clear, to be shown once. Only their SHA-256 hashes are stored.
 */
export async function issueRecoveryCodes(
  identity: IdentityStore,
  userId: string,
  now: Date,
): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newCode);
  await identity.replaceRecoveryCodes(
    userId,
    codes.map((code) => ({ id: randomUUID(), codeHash: hashRecoveryCode(code), createdAt: now })),
  );
  return codes;
}
