import { desc } from "drizzle-orm";
import { meterReadings } from "../../../store/sqlite/schema/index.ts";
import type { AuthContext } from "../../auth/auth-context.ts";
import type { ServiceContext } from "../../context.ts";
import { successorsOf } from "../corrections.ts";
import { listLimit, type RecordListQuery, recordListWhere } from "../list-filter.ts";
import { type MeterReadingDto, toMeterReadingDto } from "./meter-reading-dto.ts";

/** Meter readings of the caller's projects, latest `read_at` first. */
export function listMeterReadings(
  ctx: ServiceContext,
  auth: AuthContext,
  query: RecordListQuery,
): MeterReadingDto[] {
  const where = recordListWhere(ctx.db, auth, meterReadings, meterReadings.readAt, query);
  if (where === null) return [];
  const rows = ctx.db
    .select()
    .from(meterReadings)
    .where(where)
    .orderBy(desc(meterReadings.readAt), desc(meterReadings.createdAt), desc(meterReadings.id))
    .limit(listLimit(query))
    .all();
  const successors = successorsOf(
    ctx.db,
    meterReadings,
    rows.map((r) => r.id),
  );
  return rows.map((r) => toMeterReadingDto(r, successors.get(r.id) ?? null));
}
