import type { RecordStore } from "../../store/ports/record-store.ts";
import type {
  DowntimeSection,
  LabResultsSection,
  MovementsSection,
  WellTestsSection,
} from "./content-schema.ts";
import type { ProductionDay } from "./production-day.ts";
import { iso, round12 } from "./report-numbers.ts";

/*
 * Operational records are append-only; a correction is a new row naming the one it supersedes
 * (API MPMS 21.1 §5). The report uses only the current version of each record: a row that
 * another row supersedes is left out, wherever its successor's date falls (RecordStore.currentIn).
 */

/** The day's window as the record port takes it. */
const window = (day: ProductionDay) => [new Date(day.startMs), new Date(day.endMs)] as const;

const trail = (row: { supersedes: string | null; correctionReason: string | null }) => ({
  supersedes: row.supersedes,
  correction_reason: row.correctionReason,
});

/** Movements timestamped within the day, summed per type (every type present, 0 when none). */
export async function collectMovements(
  records: RecordStore,
  projectId: string,
  day: ProductionDay,
): Promise<MovementsSection> {
  const rows = await records.currentIn("movement", projectId, ...window(day));
  const totals = { production: 0, transfer: 0, injection: 0, flare: 0, loss: 0 };
  for (const r of rows) totals[r.movementType] += r.volumeBbls;
  return {
    count: rows.length,
    totals_bbls: {
      production: round12(totals.production),
      transfer: round12(totals.transfer),
      injection: round12(totals.injection),
      flare: round12(totals.flare),
      loss: round12(totals.loss),
    },
    entries: rows.map((r) => ({
      id: r.id,
      movement_type: r.movementType,
      volume_bbls: r.volumeBbls,
      timestamp: r.timestamp.toISOString(),
      notes: r.notes,
      ...trail(r),
    })),
  };
}

/**
 * Downtime overlapping the day, each counted only within the day. An entry with no end is
 * counted to the end of the day and flagged as ongoing. Overlapping entries are each counted.
 */
export async function collectDowntime(
  records: RecordStore,
  projectId: string,
  day: ProductionDay,
): Promise<DowntimeSection> {
  const rows = await records.currentIn("downtime", projectId, ...window(day));
  let totalMs = 0;
  const entries = rows.map((r) => {
    const from = Math.max(r.startedAt.getTime(), day.startMs);
    const to = Math.min(r.endedAt?.getTime() ?? day.endMs, day.endMs);
    const ms = Math.max(0, to - from);
    totalMs += ms;
    return {
      id: r.id,
      reason: r.reason,
      started_at: r.startedAt.toISOString(),
      ended_at: r.endedAt?.toISOString() ?? null,
      ongoing: r.endedAt === null,
      counted_from: iso(from),
      counted_to: iso(Math.max(from, to)),
      hours_lost: round12(ms / 3_600_000),
      ...trail(r),
    };
  });
  return { count: entries.length, total_hours_lost: round12(totalMs / 3_600_000), entries };
}

/** Well tests dated within the day. */
export async function collectWellTests(
  records: RecordStore,
  projectId: string,
  day: ProductionDay,
  assetNames: ReadonlyMap<string, string>,
): Promise<WellTestsSection> {
  const rows = await records.currentIn("well_test", projectId, ...window(day));
  return {
    count: rows.length,
    entries: rows.map((r) => ({
      id: r.id,
      asset_id: r.assetId,
      asset_name: assetNames.get(r.assetId) ?? null,
      test_date: r.testDate.toISOString(),
      oil_rate_bopd: r.oilRateBopd,
      water_cut_pct: r.waterCutPct,
      gor_scf_bbl: r.gorScfBbl,
      ...trail(r),
    })),
  };
}

/** Laboratory results sampled within the day (API gravity, BS&W, viscosity). */
export async function collectLabResults(
  records: RecordStore,
  projectId: string,
  day: ProductionDay,
): Promise<LabResultsSection> {
  const rows = await records.currentIn("lab_result", projectId, ...window(day));
  return {
    count: rows.length,
    entries: rows.map((r) => ({
      id: r.id,
      sample_date: r.sampleDate.toISOString(),
      api_gravity: r.apiGravity,
      bsw_pct: r.bswPct,
      viscosity_cp: r.viscosityCp,
      ...trail(r),
    })),
  };
}
