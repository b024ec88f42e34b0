/*
 * The one shape telemetry takes inside the server (STYLE.md 11): a batch of series, each the
 * points of one (project, asset, variable). An agent already sends series; an HTTP request sends
 * instants (one asset, one timestamp, many variables) and is converted once, at its edge. The
 * writer, the telemetry event, the alarm engine and the live fan-out all take this shape; only the
 * WebSocket stream, whose messages are per instant (routes/ws/schema.ts), turns it back.
 */

/** [epoch ms, value] */
export type TelemetryPoint = readonly [ts: number, value: number];

/** The points of one series in one batch, in the order they arrived. */
export type BatchSeries = {
  projectId: string;
  assetId: string;
  variable: string;
  /** The readings' unit; undefined when they came without one (the series keeps its own). */
  unit?: string | undefined;
  points: readonly TelemetryPoint[];
};

export type TelemetryBatch = {
  /** An agent's batch (its rules already evaluated at the edge) or an HTTP request. */
  source: "http" | "agent";
  /**
   * An agent batch's place in its agent's sequence: `stream` names the agent (unique across
   * projects), `seq` its batch number. Batches of one stream with consecutive numbers hold nothing
   * of that agent between them, which lets the writer join their readings (writer.ts).
   */
  sequence?: { stream: string; seq: number } | undefined;
  /** A series may appear more than once (another unit, or the caller's own order). */
  series: readonly BatchSeries[];
};

export type InstantReading = { variable: string; value: number; unit?: string | undefined };

/** Readings of one asset at one instant: an HTTP payload (spec §2, TelemetryPayload). */
export type TelemetryInstant = {
  projectId: string;
  assetId: string;
  ts: number;
  readings: readonly InstantReading[];
};

type GrowingSeries = BatchSeries & { points: TelemetryPoint[] };

/**
 * Instants as one batch: the readings of each (asset, variable) join one series, in order; a
 * reading whose unit differs from its series' starts another, so that each point keeps its unit.
 */
export function batchOfInstants(
  instants: readonly TelemetryInstant[],
  source: "http" | "agent",
): TelemetryBatch {
  const series: BatchSeries[] = [];
  const only = instants.length === 1 ? instants[0] : undefined;
  if (only) {
    // One payload (a single POST): its variables are distinct, so no lookup is needed.
    for (const r of only.readings) series.push(seriesOf(only, r, [[only.ts, r.value]]));
    return { source, series };
  }
  const open = new Map<string, Map<string, GrowingSeries>>();
  for (const instant of instants) {
    let byVariable = open.get(instant.assetId);
    if (!byVariable) {
      byVariable = new Map();
      open.set(instant.assetId, byVariable);
    }
    for (const r of instant.readings) {
      const current = byVariable.get(r.variable);
      if (current && current.unit === r.unit) {
        current.points.push([instant.ts, r.value]);
        continue;
      }
      const next = seriesOf(instant, r, [[instant.ts, r.value]]);
      series.push(next);
      byVariable.set(r.variable, next);
    }
  }
  return { source, series };
}

function seriesOf(instant: TelemetryInstant, r: InstantReading, points: TelemetryPoint[]): GrowingSeries {
  return r.unit === undefined
    ? { projectId: instant.projectId, assetId: instant.assetId, variable: r.variable, points }
    : { projectId: instant.projectId, assetId: instant.assetId, variable: r.variable, unit: r.unit, points };
}

/**
 * The batch's points as instants: one per (asset, ts), in order of first appearance, each with its
 * readings in series order. Only the WebSocket stream needs this (its messages are per instant).
 */
export function instantsOfBatch(batch: TelemetryBatch): TelemetryInstant[] {
  const instants: TelemetryInstant[] = [];
  const open = new Map<string, Map<number, InstantReading[]>>();
  for (const s of batch.series) {
    let byTs = open.get(s.assetId);
    if (!byTs) {
      byTs = new Map();
      open.set(s.assetId, byTs);
    }
    for (const [ts, value] of s.points) {
      let readings = byTs.get(ts);
      if (!readings) {
        readings = [];
        byTs.set(ts, readings);
        instants.push({ projectId: s.projectId, assetId: s.assetId, ts, readings });
      }
      readings.push(
        s.unit === undefined
          ? { variable: s.variable, value }
          : { variable: s.variable, value, unit: s.unit },
      );
    }
  }
  return instants;
}

/** How many points the batch holds. */
export function pointCount(batch: TelemetryBatch): number {
  let n = 0;
  for (const s of batch.series) n += s.points.length;
  return n;
}
