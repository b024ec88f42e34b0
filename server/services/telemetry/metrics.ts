import { Counter, Gauge, type Registry } from "prom-client";

/** Running totals the write path keeps in plain fields; Prometheus reads them at scrape time. */
export type TelemetryTotals = {
  stored: number;
  duplicates: number;
  commits: number;
  commitSeconds: number;
  retentionDeleted: number;
  packedRows: number;
  packedBlocks: number;
  packSeconds: number;
};

/** Telemetry metrics on this server's registry; the write path never touches prom-client. */
export function registerTelemetryMetrics(
  registry: Registry,
  read: () => TelemetryTotals & { rollupPending: number },
): void {
  if (registry.getSingleMetric("caudal_telemetry_points_total")) return;
  const seen: TelemetryTotals = {
    stored: 0,
    duplicates: 0,
    commits: 0,
    commitSeconds: 0,
    retentionDeleted: 0,
    packedRows: 0,
    packedBlocks: 0,
    packSeconds: 0,
  };
  const delta = (key: keyof TelemetryTotals): number => {
    const now = read()[key];
    const d = Math.max(0, now - seen[key]);
    seen[key] = now;
    return d;
  };
  new Counter({
    name: "caudal_telemetry_points_total",
    help: "Telemetry readings received, by outcome (stored, or ignored as a duplicate)",
    labelNames: ["outcome"],
    registers: [registry],
    collect() {
      this.inc({ outcome: "stored" }, delta("stored"));
      this.inc({ outcome: "duplicate" }, delta("duplicates"));
    },
  });
  new Counter({
    name: "caudal_telemetry_commits_total",
    help: "Group commits of the telemetry write path",
    registers: [registry],
    collect() {
      this.inc(delta("commits"));
    },
  });
  new Counter({
    name: "caudal_telemetry_commit_seconds_total",
    help: "Time spent in telemetry group commits (the event loop is blocked meanwhile)",
    registers: [registry],
    collect() {
      this.inc(delta("commitSeconds"));
    },
  });
  new Gauge({
    name: "caudal_telemetry_rollup_pending_series",
    help: "Series with readings not yet folded into the 5-minute and hourly rollups",
    registers: [registry],
    collect() {
      this.set(read().rollupPending);
    },
  });
  new Counter({
    name: "caudal_telemetry_retention_deleted_total",
    help: "Raw readings deleted by the retention job (TELEMETRY_RETENTION_DAYS)",
    registers: [registry],
    collect() {
      this.inc(delta("retentionDeleted"));
    },
  });
  new Counter({
    name: "caudal_telemetry_packed_points_total",
    help: "Raw readings moved into compressed blocks by the packing job (TELEMETRY_PACK_AFTER_HOURS)",
    registers: [registry],
    collect() {
      this.inc(delta("packedRows"));
    },
  });
  new Counter({
    name: "caudal_telemetry_packed_blocks_total",
    help: "Compressed blocks written by the packing job",
    registers: [registry],
    collect() {
      this.inc(delta("packedBlocks"));
    },
  });
  new Counter({
    name: "caudal_telemetry_pack_seconds_total",
    help: "Time spent in packing passes, pauses between their transactions included",
    registers: [registry],
    collect() {
      this.inc(delta("packSeconds"));
    },
  });
}
