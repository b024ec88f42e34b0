import { and, asc, eq, gt, gte, isNotNull, isNull, lt, or } from "drizzle-orm";
import type { DbOrTx } from "../../store/sqlite/append-audit.ts";
import {
  downtime,
  labResults,
  type meterReadings,
  movements,
  wellTests,
} from "../../store/sqlite/schema/index.ts";
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
 * another row supersedes is left out, wherever its successor's date falls.
 */

type RecordTable =
  | typeof movements
  | typeof downtime
  | typeof wellTests
  | typeof labResults
  | typeof meterReadings;

/** Ids of the project's records in `table` that a later record supersedes. */
export function supersededIds(db: DbOrTx, table: RecordTable, projectId: string): Set<string> {
  const rows = db
    .select({ id: table.supersedes })
    .from(table)
    .where(and(eq(table.projectId, projectId), isNotNull(table.supersedes)))
    .all();
  return new Set(rows.flatMap((r) => (r.id ? [r.id] : [])));
}

const trail = (row: { supersedes: string | null; correctionReason: string | null }) => ({
  supersedes: row.supersedes,
  correction_reason: row.correctionReason,
});

/** Movements timestamped within the day, summed per type (every type present, 0 when none). */
export function collectMovements(db: DbOrTx, projectId: string, day: ProductionDay): MovementsSection {
  const superseded = supersededIds(db, movements, projectId);
  const rows = db
    .select()
    .from(movements)
    .where(
      and(
        eq(movements.projectId, projectId),
        gte(movements.timestamp, new Date(day.startMs)),
        lt(movements.timestamp, new Date(day.endMs)),
      ),
    )
    .orderBy(asc(movements.timestamp), asc(movements.id))
    .all()
    .filter((r) => !superseded.has(r.id));
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
export function collectDowntime(db: DbOrTx, projectId: string, day: ProductionDay): DowntimeSection {
  const superseded = supersededIds(db, downtime, projectId);
  const rows = db
    .select()
    .from(downtime)
    .where(
      and(
        eq(downtime.projectId, projectId),
        lt(downtime.startedAt, new Date(day.endMs)),
        or(isNull(downtime.endedAt), gt(downtime.endedAt, new Date(day.startMs))),
      ),
    )
    .orderBy(asc(downtime.startedAt), asc(downtime.id))
    .all()
    .filter((r) => !superseded.has(r.id));
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
export function collectWellTests(
  db: DbOrTx,
  projectId: string,
  day: ProductionDay,
  assetNames: ReadonlyMap<string, string>,
): WellTestsSection {
  const superseded = supersededIds(db, wellTests, projectId);
  const rows = db
    .select()
    .from(wellTests)
    .where(
      and(
        eq(wellTests.projectId, projectId),
        gte(wellTests.testDate, new Date(day.startMs)),
        lt(wellTests.testDate, new Date(day.endMs)),
      ),
    )
    .orderBy(asc(wellTests.testDate), asc(wellTests.id))
    .all()
    .filter((r) => !superseded.has(r.id));
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
export function collectLabResults(db: DbOrTx, projectId: string, day: ProductionDay): LabResultsSection {
  const superseded = supersededIds(db, labResults, projectId);
  const rows = db
    .select()
    .from(labResults)
    .where(
      and(
        eq(labResults.projectId, projectId),
        gte(labResults.sampleDate, new Date(day.startMs)),
        lt(labResults.sampleDate, new Date(day.endMs)),
      ),
    )
    .orderBy(asc(labResults.sampleDate), asc(labResults.id))
    .all()
    .filter((r) => !superseded.has(r.id));
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
