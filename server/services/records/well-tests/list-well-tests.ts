import type { AuthContext } from "../../auth/auth-context.ts";
import type { ServiceContext } from "../../context.ts";
import { type RecordListQuery, recordListFilter } from "../list-filter.ts";
import { toWellTestDto, type WellTestDto } from "./well-test-dto.ts";

/** Well tests of the caller's projects, latest `test_date` first. */
export async function listWellTests(
  ctx: ServiceContext,
  auth: AuthContext,
  query: RecordListQuery,
): Promise<WellTestDto[]> {
  const filter = await recordListFilter(ctx.store.field, auth, query);
  if (filter === null) return [];
  const listed = await ctx.store.records.list("well_test", filter);
  return listed.map((r) => toWellTestDto(r.row, r.supersededBy));
}
