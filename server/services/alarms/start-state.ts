import { isNotNull, max } from "drizzle-orm";
import type { Db } from "../../store/sqlite/client.ts";
import { telemetrySeries } from "../../store/sqlite/schema/index.ts";

/**
 * When each asset last reported (telemetry_series.last_ts, epoch ms), for comm_loss. Read once at
 * start, on the SQLite connection until telemetry moves onto its port.
 */
export function loadLastReports(db: Db): { assetId: string; lastTs: number }[] {
  const rows = db
    .select({
      assetId: telemetrySeries.assetId,
      lastTs: max(telemetrySeries.lastTs),
    })
    .from(telemetrySeries)
    .where(isNotNull(telemetrySeries.lastTs))
    .groupBy(telemetrySeries.assetId)
    .all();
  return rows.flatMap((r) => (r.lastTs === null ? [] : [{ assetId: r.assetId, lastTs: Number(r.lastTs) }]));
}
