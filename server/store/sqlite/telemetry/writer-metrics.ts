import { Counter, Gauge, type Registry } from "prom-client";
import type { CommitTotals } from "./group-commit.ts";

/** The SQLite write path's own metrics on the server's registry; the write path never touches prom-client. */
export function registerWriterMetrics(
  registry: Registry,
  read: () => CommitTotals & { rollupPending: number },
): void {
  if (registry.getSingleMetric("caudal_telemetry_commits_total")) return;
  const seen = { commits: 0, commitSeconds: 0 };
  const delta = (key: keyof typeof seen): number => {
    const now = read()[key];
    const d = Math.max(0, now - seen[key]);
    seen[key] = now;
    return d;
  };
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
}
