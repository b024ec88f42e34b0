import type { AuthContext } from "../../auth/auth-context.ts";
import type { ServiceContext } from "../../context.ts";
import { type RecordListQuery, recordListFilter } from "../list-filter.ts";
import { type DowntimeDto, toDowntimeDto } from "./downtime-dto.ts";

/** Downtime of the caller's projects, latest `started_at` first; from/to bound `started_at`. */
export async function listDowntime(
  ctx: ServiceContext,
  auth: AuthContext,
  query: RecordListQuery,
): Promise<DowntimeDto[]> {
  const filter = await recordListFilter(ctx.store.field, auth, query);
  if (filter === null) return [];
  const listed = await ctx.store.records.list("downtime", filter);
  return listed.map((r) => toDowntimeDto(r.row, r.supersededBy));
}
