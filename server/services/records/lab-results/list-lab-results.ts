import { desc } from "drizzle-orm";
import { labResults } from "../../../store/sqlite/schema/index.ts";
import type { AuthContext } from "../../auth/auth-context.ts";
import type { ServiceContext } from "../../context.ts";
import { successorsOf } from "../corrections.ts";
import { listLimit, type RecordListQuery, recordListWhere } from "../list-filter.ts";
import { type LabResultDto, toLabResultDto } from "./lab-result-dto.ts";

/** Lab results of the caller's projects, latest `sample_date` first. */
export function listLabResults(
  ctx: ServiceContext,
  auth: AuthContext,
  query: RecordListQuery,
): LabResultDto[] {
  const where = recordListWhere(ctx.db, auth, labResults, labResults.sampleDate, query);
  if (where === null) return [];
  const rows = ctx.db
    .select()
    .from(labResults)
    .where(where)
    .orderBy(desc(labResults.sampleDate), desc(labResults.createdAt), desc(labResults.id))
    .limit(listLimit(query))
    .all();
  const successors = successorsOf(
    ctx.db,
    labResults,
    rows.map((r) => r.id),
  );
  return rows.map((r) => toLabResultDto(r, successors.get(r.id) ?? null));
}
