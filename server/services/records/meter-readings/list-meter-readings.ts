import type { AuthContext } from "../../auth/auth-context.ts";
import type { ServiceContext } from "../../context.ts";
import { type RecordListQuery, recordListFilter } from "../list-filter.ts";
import { type MeterReadingDto, toMeterReadingDto } from "./meter-reading-dto.ts";

/** Meter readings of the caller's projects, latest `read_at` first. */
export async function listMeterReadings(
  ctx: ServiceContext,
  auth: AuthContext,
  query: RecordListQuery,
): Promise<MeterReadingDto[]> {
  const filter = await recordListFilter(ctx.store.field, auth, query);
  if (filter === null) return [];
  const listed = await ctx.store.records.list("meter_reading", filter);
  return listed.map((r) => toMeterReadingDto(r.row, r.supersededBy));
}
