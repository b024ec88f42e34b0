import type { CompletenessSoFar, ProductionSoFar } from "../../../shared/dashboard/overview.ts";
import type { AssetRow, ProjectRow } from "../../store/rows.ts";
import type { StorePorts } from "../../store/store.ts";
import { collectMovements } from "../reports/collect-records.ts";
import { BUCKET_MS, collectTelemetry } from "../reports/collect-telemetry.ts";
import { projectDay } from "../reports/generate-report.ts";
import { addDays, localDateOf, type ProductionDay } from "../reports/production-day.ts";
import { iso } from "../reports/report-numbers.ts";

/**
 * Today's production and completeness so far, by the ANH report's own code (collectMovements,
 * collectTelemetry) applied to the part of the day elapsed, so the figures are the report's
 * figures as of now and never a second formula.
 *
 * - Production: the movements of type production from 00:00 (project zone) to now, against
 *   yesterday's over as long a stretch from its 00:00 (the same hour, cut at yesterday's end on a
 *   25-hour day).
 * - Completeness: readings received against those the poll intervals expect since 00:00, or
 *   since the project was created when that was later today: early in the day it says how the
 *   hours so far went, not which fraction of 24 h has passed.
 */
export async function dayFigures(
  ports: Pick<StorePorts, "telemetry" | "field" | "records">,
  project: ProjectRow,
  assets: readonly AssetRow[],
  nowMs: number,
): Promise<{ production: ProductionSoFar; completeness: CompletenessSoFar }> {
  const today = projectDay(project, localDateOf(nowMs, project.timezone));
  const yesterday = projectDay(project, addDays(today.date, -1));
  const elapsed = nowMs - today.startMs;
  const todaySoFar: ProductionDay = { ...today, endMs: nowMs };
  const yesterdaySoFar: ProductionDay = {
    ...yesterday,
    endMs: Math.min(yesterday.endMs, yesterday.startMs + elapsed),
  };
  const [t, y] = [
    await collectMovements(ports.records, project.id, todaySoFar),
    await collectMovements(ports.records, project.id, yesterdaySoFar),
  ];

  // A bucket belongs to the window holding its start: the created instant rounds down to one.
  const created = Math.floor(project.createdAt.getTime() / BUCKET_MS) * BUCKET_MS;
  const since: ProductionDay = { ...todaySoFar, startMs: Math.max(today.startMs, created) };
  const { telemetry } = await collectTelemetry(ports, project.id, since, assets);
  const expected = telemetry.samples_expected;
  return {
    production: {
      unit: "bbl",
      today: {
        from: iso(todaySoFar.startMs),
        to: iso(todaySoFar.endMs),
        volume_bbls: t.totals_bbls.production,
        movements: t.entries.filter((e) => e.movement_type === "production").length,
      },
      yesterday: {
        from: iso(yesterdaySoFar.startMs),
        to: iso(yesterdaySoFar.endMs),
        volume_bbls: y.totals_bbls.production,
        movements: y.entries.filter((e) => e.movement_type === "production").length,
      },
    },
    completeness: {
      from: iso(since.startMs),
      to: iso(since.endMs),
      samples_received: telemetry.samples_received,
      samples_expected: expected,
      ratio: expected > 0 ? Math.min(1, telemetry.samples_received / expected) : null,
    },
  };
}
