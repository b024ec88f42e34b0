import type { AuthContext } from "../../auth/auth-context.ts";
import type { ServiceContext } from "../../context.ts";
import { type RecordListQuery, recordListFilter } from "../list-filter.ts";
import { type LabResultDto, toLabResultDto } from "./lab-result-dto.ts";

/** Lab results of the caller's projects, latest `sample_date` first. */
export async function listLabResults(
  ctx: ServiceContext,
  auth: AuthContext,
  query: RecordListQuery,
): Promise<LabResultDto[]> {
  const filter = await recordListFilter(ctx.store.field, auth, query);
  if (filter === null) return [];
  const listed = await ctx.store.records.list("lab_result", filter);
  return listed.map((r) => toLabResultDto(r.row, r.supersededBy));
}
