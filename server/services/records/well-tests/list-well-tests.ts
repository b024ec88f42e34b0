import { desc } from "drizzle-orm";
import { wellTests } from "../../../store/sqlite/schema/index.ts";
import type { AuthContext } from "../../auth/auth-context.ts";
import type { ServiceContext } from "../../context.ts";
import { successorsOf } from "../corrections.ts";
import { listLimit, type RecordListQuery, recordListWhere } from "../list-filter.ts";
import { toWellTestDto, type WellTestDto } from "./well-test-dto.ts";

/** Well tests of the caller's projects, latest `test_date` first. */
export function listWellTests(ctx: ServiceContext, auth: AuthContext, query: RecordListQuery): WellTestDto[] {
  const where = recordListWhere(ctx.db, auth, wellTests, wellTests.testDate, query);
  if (where === null) return [];
  const rows = ctx.db
    .select()
    .from(wellTests)
    .where(where)
    .orderBy(desc(wellTests.testDate), desc(wellTests.createdAt), desc(wellTests.id))
    .limit(listLimit(query))
    .all();
  const successors = successorsOf(
    ctx.db,
    wellTests,
    rows.map((r) => r.id),
  );
  return rows.map((r) => toWellTestDto(r, successors.get(r.id) ?? null));
}
