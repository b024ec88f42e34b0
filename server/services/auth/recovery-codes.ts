import { randomBytes, randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { recoveryCodes } from "../../db/schema/index.ts";
import type { ServiceContext } from "../context.ts";
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

/** Replaces every recovery code of the user; returns the new ones in clear, shown once. */
export function issueRecoveryCodes(ctx: ServiceContext, userId: string): string[] {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newCode);
  const now = ctx.clock.now();
  ctx.db.transaction((tx) => {
    tx.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId)).run();
    for (const code of codes) {
      tx.insert(recoveryCodes)
        .values({ id: randomUUID(), userId, codeHash: hashRecoveryCode(code), createdAt: now })
        .run();
    }
  });
  return codes;
}
