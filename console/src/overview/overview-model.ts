import type { Alarm, StreamMessage } from "../api/types.ts";
import type { DashboardOverview, ProjectOverview } from "./overview-types.ts";

export type LiveVariable = {
  variable: string;
  unit: string | null;
  value: number | null;
  /** Epoch ms of `value`. */
  ts: number | null;
  /** Bucket averages from the model's window start, one per bucket. */
  spark: (number | null)[];
  /** Bumped when `spark` changes: views keep the path they drew for a version. */
  version: number;
  /** The live readings of the bucket they last fell in, averaged into its point. */
  live: { bucket: number; sum: number; count: number } | null;
};

export type LiveAsset = {
  id: string;
  name: string;
  assetType: ProjectOverview["assets"][number]["asset_type"];
  variableCount: number;
  pollMs: number | null;
  lastTs: number | null;
  keys: LiveVariable[];
  /** Bumped whenever anything of the asset changes: an unchanged card is not drawn again. */
  version: number;
};

export type LiveProject = Omit<ProjectOverview, "assets"> & { assets: LiveAsset[] };

const SEVERITY_RANK = { critical: 0, warning: 1, info: 2 } as const;

/** The order the server lists them in: most severe first, then newest first. */
export function compareAlarms(a: Alarm, b: Alarm): number {
  return (
    SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity] || Date.parse(b.timestamp) - Date.parse(a.timestamp)
  );
}

/**
 * The overview's state in this page: the server's answer (GET /api/dashboard/overview) kept up to
 * date by the live stream. Telemetry moves the key variables' values, their assets' newest
 * reading and the sparklines' last points; alarm events add, change and remove listed alarms
 * (ISA-18.2: one leaves the list once returned to normal and acknowledged). Each apply says
 * whether anything shown changed, so a page redraws only then.
 */
export class OverviewModel {
  readonly projects: LiveProject[];
  readonly bucketMs: number;
  /** Start of the sparklines' first bucket; the last is the one now filling. */
  sparkStart: number;
  readonly buckets: number;
  readonly #assets = new Map<string, LiveAsset>();
  readonly #keys = new Map<string, Map<string, LiveVariable>>();
  readonly #projects = new Map<string, LiveProject>();

  constructor(overview: DashboardOverview) {
    this.bucketMs = overview.sparkline.bucket_seconds * 1000;
    this.sparkStart = Date.parse(overview.sparkline.from);
    this.buckets = Math.round((Date.parse(overview.sparkline.to) - this.sparkStart) / this.bucketMs);
    this.projects = overview.projects.map((p) => {
      const project: LiveProject = {
        ...p,
        alarms: [...p.alarms].sort(compareAlarms),
        assets: p.assets.map((a) => {
          const asset: LiveAsset = {
            id: a.asset_id,
            name: a.name,
            assetType: a.asset_type,
            variableCount: a.variable_count,
            pollMs: a.poll_interval_ms,
            lastTs: a.last_reading_at === null ? null : Date.parse(a.last_reading_at),
            version: 0,
            keys: a.key_variables.map((k) => ({
              variable: k.variable,
              unit: k.unit,
              value: k.value,
              ts: k.timestamp === null ? null : Date.parse(k.timestamp),
              spark: k.spark.length === this.buckets ? [...k.spark] : new Array(this.buckets).fill(null),
              version: 0,
              live: null,
            })),
          };
          this.#assets.set(asset.id, asset);
          this.#keys.set(asset.id, new Map(asset.keys.map((k) => [k.variable, k])));
          return asset;
        }),
      };
      this.#projects.set(p.project_id, project);
      return project;
    });
  }

  /** Applies a stream message; true when something shown changed. */
  apply(message: StreamMessage): boolean {
    if (message.type === "telemetry") return this.#telemetry(message);
    if (message.type === "alarm") return this.setAlarm(message.alarm);
    return false;
  }

  #telemetry(m: Extract<StreamMessage, { type: "telemetry" }>): boolean {
    const asset = this.#assets.get(m.asset_id);
    if (!asset) return false;
    const ts = Date.parse(m.timestamp);
    let changed = false;
    if (asset.lastTs === null || ts > asset.lastTs) {
      asset.lastTs = ts;
      changed = true;
    }
    const keys = this.#keys.get(m.asset_id);
    if (keys) {
      for (const r of m.readings) {
        const key = keys.get(r.variable);
        if (!key) continue;
        if (key.ts === null || ts >= key.ts) {
          key.value = r.value;
          key.ts = ts;
          if (r.unit && !key.unit) key.unit = r.unit;
          changed = true;
        }
        changed = this.#sparkPoint(key, ts, r.value) || changed;
      }
    }
    if (changed) asset.version++;
    return changed;
  }

  /**
   * A live reading's bucket point becomes the average of the readings this page saw in it, the
   * server's average of the bucket (when it had one at load) counted as one of them.
   */
  #sparkPoint(key: LiveVariable, ts: number, value: number): boolean {
    const bucket = Math.floor(ts / this.bucketMs) * this.bucketMs;
    const index = (bucket - this.sparkStart) / this.bucketMs;
    if (index < 0 || index >= this.buckets) return false;
    if (!key.live || key.live.bucket !== bucket) {
      const before = key.spark[index] ?? null;
      key.live = before === null ? { bucket, sum: 0, count: 0 } : { bucket, sum: before, count: 1 };
    }
    key.live.sum += value;
    key.live.count += 1;
    key.spark[index] = key.live.sum / key.live.count;
    key.version++;
    return true;
  }

  /** Moves the sparklines' window so that its last bucket is the one `now` falls in. */
  advance(now: number): boolean {
    const last = Math.floor(now / this.bucketMs) * this.bucketMs;
    const shift = Math.round((last - (this.sparkStart + (this.buckets - 1) * this.bucketMs)) / this.bucketMs);
    if (shift <= 0) return false;
    this.sparkStart += shift * this.bucketMs;
    for (const asset of this.#assets.values()) {
      asset.version++;
      for (const key of asset.keys) {
        key.spark = [
          ...key.spark.slice(Math.min(shift, this.buckets)),
          ...new Array(Math.min(shift, this.buckets)).fill(null),
        ];
        key.version++;
      }
    }
    return true;
  }

  /** Records an alarm as the server now has it (a stream event, or the answer to an acknowledgement). */
  setAlarm(alarm: Alarm): boolean {
    const project = this.#projects.get(alarm.project_id);
    if (!project) return false;
    const rest = project.alarms.filter((a) => a.id !== alarm.id);
    const listed = alarm.active || !alarm.acknowledged;
    project.alarms = listed ? [...rest, alarm].sort(compareAlarms) : rest;
    return true;
  }
}
