import { randomBytes, randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import type { DbOrTx } from "../../store/sqlite/append-audit.ts";
import { recoveryCodes } from "../../store/sqlite/schema/index.ts";
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
 * Replaces every recovery code of the user inside the caller's transaction; returns the new
 * ones in clear, to be shown once. Only their SHA-256 hashes are stored.
 */
export function issueRecoveryCodes(db: DbOrTx, userId: string, now: Date): string[] {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newCode);
  db.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId)).run();
  for (const code of codes) {
    db.insert(recoveryCodes)
      .values({ id: randomUUID(), userId, codeHash: hashRecoveryCode(code), createdAt: now })
      .run();
  }
  return codes;
}
