import { Counter, type Registry } from "prom-client";

/** Running totals the write path keeps in plain fields; Prometheus reads them at scrape time. */
export type TelemetryTotals = {
  stored: number;
  duplicates: number;
  retentionDeleted: number;
  packedRows: number;
  packedBlocks: number;
  packSeconds: number;
};

/**
 * The telemetry service's metrics on this server's registry (the store's writer registers its own:
 * commits, roll-up backlog); the write path never touches prom-client.
 */
export function registerTelemetryMetrics(registry: Registry, read: () => TelemetryTotals): void {
  if (registry.getSingleMetric("caudal_telemetry_points_total")) return;
  const seen: TelemetryTotals = {
    stored: 0,
    duplicates: 0,
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
