import { AppError, badRequest, notFound } from "../../errors.ts";
import type { RecordKind, RecordStore } from "../../store/ports/record-store.ts";
import type { CorrectionInput } from "./record-base.ts";

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
export async function assertCorrectable(
  records: RecordStore,
  kind: RecordKind,
  input: CorrectionInput,
  what: string,
): Promise<void> {
  if (!input.supersedes) return;
  const target = await records.correctionTarget(kind, input.supersedes, input.project_id);
  if (!target) throw notFound(`${what} to supersede (supersedes)`);
  if (target.supersededBy !== null) {
    throw new AppError(
      "Conflict",
      `supersedes: ${what} ${input.supersedes} is already superseded by ${target.supersededBy}; correct that one instead`,
    );
  }
}
