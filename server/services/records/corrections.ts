import { and, eq, inArray } from "drizzle-orm";
import { AppError, badRequest, notFound } from "../../errors.ts";
import type { DbOrTx } from "../../store/sqlite/append-audit.ts";
import type { CorrectionInput } from "./record-base.ts";
import type { RecordTable } from "./record-tables.ts";

/** A correction says why (API MPMS 21.1 §5: the event log keeps the reason for a change). */
export function assertCorrectionFields(input: CorrectionInput): void {
  const reason = input.correction_reason?.trim();
  if (input.supersedes && !reason)
    throw badRequest("correction_reason: is required when supersedes is given");
  if (!input.supersedes && reason)
    throw badRequest("correction_reason: only allowed together with supersedes");
}

/**
 * API MPMS 21.1 §5: quantity records stay original and unaltered; a correction is a new record
 * naming the one it replaces. The target must be a record of the same type and project (404
 * otherwise, without saying which) and still current (409): a chain never forks. A unique index
 * on `supersedes` backs the 409 in storage.
 */
export function assertCorrectable(
  tx: DbOrTx,
  table: RecordTable,
  input: CorrectionInput,
  what: string,
): void {
  if (!input.supersedes) return;
  const target = tx
    .select({ id: table.id })
    .from(table)
    .where(and(eq(table.id, input.supersedes), eq(table.projectId, input.project_id)))
    .get();
  if (!target) throw notFound(`${what} to supersede (supersedes)`);
  const successor = tx.select({ id: table.id }).from(table).where(eq(table.supersedes, target.id)).get();
  if (successor) {
    throw new AppError(
      "Conflict",
      `supersedes: ${what} ${target.id} is already superseded by ${successor.id}; correct that one instead`,
    );
  }
}

/** For each record id, the id of the record that supersedes it (absent while it is current). */
export function successorsOf(db: DbOrTx, table: RecordTable, ids: string[]): Map<string, string> {
  const out = new Map<string, string>();
  // Bound the IN list well under SQLite's variable limit.
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500);
    const rows = db
      .select({ id: table.id, supersedes: table.supersedes })
      .from(table)
      .where(inArray(table.supersedes, chunk))
      .all();
    for (const r of rows) if (r.supersedes) out.set(r.supersedes, r.id);
  }
  return out;
}
