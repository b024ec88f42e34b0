import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import { seesAllProjects } from "../../../shared/roles.ts";
import { forbidden } from "../../errors.ts";
import { auditHash, auditHashInput } from "../../store/audit-chain.ts";
import type { StoredAuditEntry } from "../../store/ports/audit-store.ts";
import { type AuthContext, authorize } from "../auth/auth-context.ts";
import type { ServiceContext } from "../context.ts";

export type ChainBreakReason = "hash mismatch" | "prev_hash mismatch" | "seq gap" | "truncated";

export type AuditVerification =
  | { valid: true; entries: number; head: { seq: number; hash: string } | null }
  | {
      valid: false;
      /** Entries found intact before the break. */
      entries: number;
      broken_at: { seq: number; id: string | null; reason: ChainBreakReason };
    };

/** Rows per read batch: about 10 ms of hashing on one core before the event loop gets a turn. */
export const AUDIT_VERIFY_BATCH = 1000;

function parseJson(text: string | null): { ok: true; value: unknown } | { ok: false } {
  if (text === null) return { ok: true, value: null };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

function recomputedHash(e: StoredAuditEntry): string | null {
  const before = parseJson(e.before);
  const after = parseJson(e.after);
  if (!before.ok || !after.ok) return null;
  return auditHash(auditHashInput({ ...e, before: before.value, after: after.value }));
}

/**
 * The walk covers every entry of every project and reports counts and ids across them, so it is
 * for roles that read the whole log (superadmin, admin); a supervisor's audit:read is per project.
 */
export function assertMayVerifyAudit(auth: AuthContext): void {
  authorize(auth, "audit:read");
  if (!seesAllProjects(auth.role)) {
    throw forbidden("verifying the audit chain reads every project's entries: superadmin or admin only");
  }
}

/**
 * Walks the whole audit chain in seq order (API MPMS 21.1 §5: the logs must show any change).
 * Each entry must name the previous entry's hash (a removed or reordered entry breaks this),
 * hash to its stored hash (an edited entry breaks this), and follow the previous seq by one
 * (seq is AUTOINCREMENT and a rolled-back insert does not consume one, so a gap is a removal
 * even when the chain was rehashed after it). Removal of the newest entries is caught against
 * the highest seq ever issued.
 *
 * Reads in batches and yields to the event loop between them, so a long
 * log neither sits in memory nor stalls telemetry ingestion. Entries appended during the walk are
 * left for the next run: the walk stops at the seq issued when it started. It needs only the
 * store: `caudal-server migrate` walks the source's and the target's chains with it.
 */
export async function verifyAuditChain(ctx: Pick<ServiceContext, "store">): Promise<AuditVerification> {
  const bound = await ctx.store.audit.highestIssuedSeq();
  let entries = 0;
  let prevSeq = 0;
  let prevHash = "";
  for (;;) {
    const page = await ctx.store.audit.chainPage(prevSeq, bound, AUDIT_VERIFY_BATCH);
    for (const e of page) {
      const reason: ChainBreakReason | null =
        e.prevHash !== prevHash
          ? "prev_hash mismatch"
          : recomputedHash(e) !== e.hash
            ? "hash mismatch"
            : e.seq !== prevSeq + 1
              ? "seq gap"
              : null;
      if (reason) return { valid: false, entries, broken_at: { seq: e.seq, id: e.id, reason } };
      entries++;
      prevSeq = e.seq;
      prevHash = e.hash;
    }
    if (page.length < AUDIT_VERIFY_BATCH) break;
    await yieldToEventLoop();
  }
  if (prevSeq < bound) {
    return { valid: false, entries, broken_at: { seq: prevSeq + 1, id: null, reason: "truncated" } };
  }
  return { valid: true, entries, head: entries > 0 ? { seq: prevSeq, hash: prevHash } : null };
}
