import { desc } from "drizzle-orm";
import { downtime } from "../../../store/sqlite/schema/index.ts";
import type { AuthContext } from "../../auth/auth-context.ts";
import type { ServiceContext } from "../../context.ts";
import { successorsOf } from "../corrections.ts";
import { listLimit, type RecordListQuery, recordListWhere } from "../list-filter.ts";
import { type DowntimeDto, toDowntimeDto } from "./downtime-dto.ts";

/** Downtime of the caller's projects, latest `started_at` first; from/to bound `started_at`. */
export function listDowntime(ctx: ServiceContext, auth: AuthContext, query: RecordListQuery): DowntimeDto[] {
  const where = recordListWhere(ctx.db, auth, downtime, downtime.startedAt, query);
  if (where === null) return [];
  const rows = ctx.db
    .select()
    .from(downtime)
    .where(where)
    .orderBy(desc(downtime.startedAt), desc(downtime.createdAt), desc(downtime.id))
    .limit(listLimit(query))
    .all();
  const successors = successorsOf(
    ctx.db,
    downtime,
    rows.map((r) => r.id),
  );
  return rows.map((r) => toDowntimeDto(r, successors.get(r.id) ?? null));
}
