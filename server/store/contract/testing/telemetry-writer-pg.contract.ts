import { Registry } from "prom-client";
import { afterEach, beforeEach, expect, it } from "vitest";
import type { BatchSeries, TelemetryBatch, TelemetryPoint } from "../../../../shared/telemetry/batch.ts";
import type { BatchTransaction, TelemetryWriterHost } from "../../ports/telemetry-store.ts";
import { CompensatedSum } from "../../postgres/compensated-sum.ts";
import { storedChain } from "./audit-store.contract.ts";
import type { ContractBackend, StoreUnderTest } from "./backend.ts";
import { auditEntry, newAsset, newProject } from "./fixtures.ts";

const MIN5 = 300_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;
/** A UTC midnight: 2026-01-10. */
const D = Date.UTC(2026, 0, 10);
const PERIOD = "2026-01";

const quiet: TelemetryWriterHost = {
  warn() {},
  error() {},
  info() {},
  metrics: new Registry(),
  now: () => Date.now(),
};

/**
 * TelemetryStore's write side and raw reads (server/store/ports/telemetry-store.ts) through port
 * calls only: duplicates, all-or-nothing batches with their BatchTransaction, concurrent writers,
 * day partitions, retention, packing, history windows, point reads and rollups.
 */
export function telemetryWriterPgContract(backend: ContractBackend): void {
  let t: StoreUnderTest;
  let p: string;
  let q: string;
  let a: string;
  let b: string;
  beforeEach(async () => {
    t = await backend.open();
    p = (await t.store.field.insertProject(newProject("P"))).id;
    q = (await t.store.field.insertProject(newProject("Q"))).id;
    a = (await t.store.field.insertAsset(newAsset(p, "A"))).id;
    b = (await t.store.field.insertAsset(newAsset(p, "B"))).id;
    await t.store.telemetry.start({ blockPoints: 0 }, quiet);
  });
  afterEach(async () => {
    await t.store.telemetry.stop();
    await t.close();
  });

  const series = (assetId: string, variable: string, points: TelemetryPoint[], unit?: string): BatchSeries =>
    unit === undefined
      ? { projectId: p, assetId, variable, points }
      : { projectId: p, assetId, variable, unit, points };
  const batch = (...s: BatchSeries[]): TelemetryBatch => ({ source: "agent", series: s });
  const write = (tb: TelemetryBatch, tx?: BatchTransaction) => t.store.telemetry.write(tb, PERIOD, tx);
  const idOf = async (assetId: string, variable: string) => {
    const found = (await t.store.telemetry.assetSeries(assetId, [variable]))[0];
    if (!found) throw new Error(`no series ${variable}`);
    return found.id;
  };
  const all = async (seriesId: number) =>
    t.store.telemetry
      .pointReader(8)
      .ascending(seriesId, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER, 1e6);

  it("stores a batch once: duplicates of stored readings and repeats within the batch count nowhere", async () => {
    const first = await write(
      batch(
        series(
          a,
          "flow",
          [
            [D + 1, 1],
            [D + 2, 2],
            [D + 2, 9],
          ],
          "bbl",
        ),
      ),
    );
    expect(first.result).toEqual({ accepted: 2, duplicates: 1 });
    expect(first.committed.series[0]?.points).toEqual([
      [D + 1, 1],
      [D + 2, 2],
    ]);
    // Out of order, a replayed reading, a new one; the unit comes from the series.
    const second = await write(
      batch(
        series(a, "flow", [
          [D + 3, 3],
          [D + 2, 5],
          [D + 0, 0],
        ]),
      ),
    );
    expect(second.result).toEqual({ accepted: 2, duplicates: 1 });
    expect(second.committed.series).toEqual([
      {
        projectId: p,
        assetId: a,
        variable: "flow",
        unit: "bbl",
        points: [
          [D + 3, 3],
          [D + 0, 0],
        ],
      },
    ]);
    const replay = await write(
      batch(
        series(a, "flow", [
          [D + 1, 7],
          [D + 3, 7],
        ]),
      ),
    );
    expect(replay.result).toEqual({ accepted: 0, duplicates: 2 });
    expect(replay.committed.series).toEqual([]);
    const id = await idOf(a, "flow");
    expect(await all(id)).toEqual([
      [D, 0],
      [D + 1, 1],
      [D + 2, 2],
      [D + 3, 3],
    ]);
    expect(await t.store.billing.telemetryPoints(p, PERIOD)).toBe(4);
    expect(await t.store.telemetry.recentReadings(5, [p])).toMatchObject([
      { assetId: a, variable: "flow", unit: "bbl", value: 3, ts: D + 3 },
    ]);
  });

  it("commits a batch with its BatchTransaction, all or nothing", async () => {
    const calls: string[] = [];
    const ok: BatchTransaction = {
      async claim(tx) {
        calls.push("claim");
        await tx.audit.append(auditEntry(1));
        return true;
      },
      async complete(tx) {
        calls.push("complete");
        await tx.audit.append(auditEntry(2));
      },
    };
    expect((await write(batch(series(a, "flow", [[D, 1]])), ok)).result.accepted).toBe(1);
    expect(calls).toEqual(["claim", "complete"]);
    expect(await storedChain(t.store)).toHaveLength(2);

    const failing: BatchTransaction = {
      async claim(tx) {
        await tx.audit.append(auditEntry(3));
        return true;
      },
      async complete() {
        throw new Error("complete failed");
      },
    };
    await expect(
      write(batch(series(a, "flow", [[D + 1, 2]]), series(b, "level", [[D, 5]])), failing),
    ).rejects.toThrow("complete failed");
    expect(await storedChain(t.store)).toHaveLength(2);
    expect(await t.store.telemetry.assetSeries(b)).toEqual([]);
    expect(await all(await idOf(a, "flow"))).toEqual([[D, 1]]);
    expect(await t.store.billing.telemetryPoints(p, PERIOD)).toBe(1);
    expect(await t.store.telemetry.lastReports()).toEqual([{ assetId: a, lastTs: D }]);
  });

  it("writes nothing for a batch its claim() refuses", async () => {
    let completed = false;
    const written = await write(batch(series(a, "flow", [[D, 1]])), {
      claim: async () => false,
      complete: async () => {
        completed = true;
      },
    });
    expect(written.result).toEqual({ accepted: 0, duplicates: 0 });
    expect(written.committed.series).toEqual([]);
    expect(completed).toBe(false);
    expect(await t.store.telemetry.assetSeries(a)).toEqual([]);
    expect(await t.store.billing.telemetryPoints(p, PERIOD)).toBe(0);
  });

  it("refuses a series whose asset is no longer in its project, and stores none of the batch", async () => {
    const moved = batch(series(b, "level", [[D, 1]]), {
      projectId: q,
      assetId: a,
      variable: "flow",
      points: [[D, 1]],
    });
    await expect(write(moved)).rejects.toMatchObject({ code: "NotFound", message: "asset not found" });
    expect(await t.store.telemetry.assetSeries(b)).toEqual([]);
  });

  it("lets concurrent writers create the same series once and keeps all their readings", async () => {
    const writes = Array.from({ length: 8 }, (_, i) =>
      write(
        batch(
          series(a, "flow", [[D + i, i]]),
          series(a, "pressure", [[D + i, -i]]),
          series(b, "level", [[D, 1]]),
        ),
      ),
    );
    const results = await Promise.all(writes);
    expect(results.reduce((n, r) => n + r.result.accepted, 0)).toBe(17);
    expect((await t.store.telemetry.assetSeries(a)).map((s) => s.variable)).toEqual(["flow", "pressure"]);
    expect(await t.store.telemetry.assetSeries(b)).toHaveLength(1);
    expect(await all(await idOf(a, "flow"))).toHaveLength(8);
    expect(await t.store.billing.telemetryPoints(p, PERIOD)).toBe(17);
  });

  it("stores readings of days far apart, late ones included, every double as it came", async () => {
    const days = [Date.UTC(2020, 1, 29, 12), D - 400 * DAY, D + 2 * DAY + 1, D, -1, -DAY - 5];
    for (const day of days) await write(batch(series(a, "flow", [[day, day / DAY]])));
    const id = await idOf(a, "flow");
    expect((await all(id)).map(([ts]) => ts)).toEqual([...days].sort((x, y) => x - y));
    const extremes = [Number.MAX_VALUE, -Number.MAX_VALUE, Number.MIN_VALUE, 0.1 + 0.2, -123456789.000001];
    await write(
      batch(
        series(
          a,
          "odd",
          extremes.map((v, i) => [D + i, v] as const),
        ),
      ),
    );
    expect(await all(await idOf(a, "odd"))).toEqual(extremes.map((v, i) => [D + i, v]));
  });

  it("reads points in order within [from, to], at most `limit`, raw and packed alike", async () => {
    const points: TelemetryPoint[] = Array.from({ length: 40 }, (_, i) => [D + i * 1000, i / 10]);
    await write(batch(series(a, "flow", points.slice(0, 20))));
    const id = await idOf(a, "flow");
    await t.store.telemetry.pack(D + DAY);
    await write(batch(series(a, "flow", points.slice(20))));
    const reader = t.store.telemetry.pointReader(4);
    expect(await reader.ascending(id, D + 5000, D + 25_000, 100)).toEqual(points.slice(5, 26));
    expect(await reader.ascending(id, D + 5000, D + 25_000, 3)).toEqual(points.slice(5, 8));
    expect(await reader.ascending(id, D + 18_000, D + 39_000, 4)).toEqual(points.slice(18, 22));
    expect(await reader.descending(id, D, D + 21_000, 3)).toEqual([points[21], points[20], points[19]]);
    expect(await reader.descending(id, D, D + 19_500, 2)).toEqual([points[19], points[18]]);
    expect(await reader.descending(id, D + 100_000, D + 200_000, 5)).toEqual([]);
  });

  it("packs cold readings and merges late ones into their block, never losing one", async () => {
    const points: TelemetryPoint[] = Array.from({ length: 600 }, (_, i) => [D + i * 2000, Math.sin(i)]);
    await write(batch(series(a, "flow", points)));
    const id = await idOf(a, "flow");
    const before = await all(id);
    const packed = await t.store.telemetry.pack(D + DAY);
    expect(packed).toMatchObject({ rawRows: 600, points: 600, blocks: 1, rewritten: 0, series: 1 });
    expect(await all(id)).toEqual(before);
    // A late reading inside the block's span, and a replay of a packed one.
    const late = await write(
      batch(
        series(a, "flow", [
          [D + 1001, 42],
          [D + 2000, 7],
        ]),
      ),
    );
    expect(late.result).toEqual({ accepted: 1, duplicates: 1 });
    expect(await t.store.telemetry.pack(D + DAY)).toMatchObject({
      rawRows: 1,
      points: 601,
      blocks: 1,
      rewritten: 1,
    });
    const after = await all(id);
    expect(after).toHaveLength(601);
    expect(after[1]).toEqual([D + 1001, 42]);
    expect(after.filter(([ts]) => ts !== D + 1001)).toEqual(before);
    expect(await t.store.telemetry.pack(D + DAY)).toMatchObject({ rawRows: 0, blocks: 0 });
  });

  it("deletes whole days of readings before the cutoff, raw and packed, and keeps the rollups", async () => {
    await write(
      batch(
        series(a, "flow", [
          [D - 2 * DAY, 1],
          [D - DAY + 5, 2],
          [D - 1, 3],
          [D, 4],
          [D + HOUR, 5],
        ]),
      ),
    );
    const id = await idOf(a, "flow");
    await t.store.telemetry.pack(D - DAY); // the first day's reading is packed
    expect(await t.store.telemetry.deleteRawBefore(D)).toBe(3);
    expect(await all(id)).toEqual([
      [D, 4],
      [D + HOUR, 5],
    ]);
    expect(await t.store.telemetry.deleteRawBefore(D)).toBe(0);
    const days = await t.store.telemetry.windows(id, "1d", D - 2 * DAY, D + DAY);
    expect(days.map(([day, count]) => [day, count])).toEqual([
      [D - 2 * DAY, 1],
      [D - DAY, 2],
      [D, 2],
    ]);
    // The day is gone and comes back for a late reading.
    await write(batch(series(a, "flow", [[D - DAY + 9, 6]])));
    expect(await all(id)).toEqual([
      [D - DAY + 9, 6],
      [D, 4],
      [D + HOUR, 5],
    ]);
  });

  it("rolls up 5-minute, hourly and daily windows equal to a reference sum, backfill merged", async () => {
    // Values whose sums round: the order of additions shows in the last bits.
    const points: TelemetryPoint[] = Array.from({ length: 500 }, (_, i) => [
      D + i * 17_000,
      0.1 * i + 1e-3 / (i + 1),
    ]);
    await write(batch(series(a, "flow", points.slice(0, 400))));
    const id = await idOf(a, "flow");
    await t.store.telemetry.rollUp([id]);
    // Backfill into buckets rolled up already, then live readings rolled up later.
    await write(
      batch(
        series(
          a,
          "flow",
          points.slice(400).map(([ts, v]) => [ts - 400 * 17_000 + 5, v] as const),
        ),
      ),
    );
    const later: TelemetryPoint[] = [
      [D + 400 * 17_000, 3.3],
      [D + 401 * 17_000, -7.1],
    ];
    await write(batch(series(a, "flow", later)));
    await t.store.telemetry.rollUp([id]);

    // The reference: each bucket's readings of one pass added in ts order, then added to the bucket.
    const buckets = new Map<number, [number, number, number, number, number]>();
    const pass = (pts: readonly TelemetryPoint[]) => {
      const sums = new Map<number, [number, number, number, number, number]>();
      for (const [ts, v] of [...pts].sort((x, y) => x[0] - y[0])) {
        const start = ts - (ts % MIN5);
        const s = sums.get(start) ?? [start, 0, 0, v, v];
        sums.set(start, [start, s[1] + 1, s[2] + v, Math.min(s[3], v), Math.max(s[4], v)]);
      }
      for (const [start, s] of sums) {
        const e = buckets.get(start);
        buckets.set(
          start,
          e ? [start, e[1] + s[1], e[2] + s[2], Math.min(e[3], s[3]), Math.max(e[4], s[4])] : s,
        );
      }
    };
    pass(points.slice(0, 400));
    pass(points.slice(400).map(([ts, v]) => [ts - 400 * 17_000 + 5, v]));
    pass(later);
    const fiveMinutes = [...buckets.values()].sort((x, y) => x[0] - y[0]);
    expect(await t.store.telemetry.windows(id, "5m", D, D + DAY)).toEqual(fiveMinutes);
    const total = (rows: typeof fiveMinutes, width: number) => {
      const out: [number, number, number, number, number][] = [];
      let sum = new CompensatedSum();
      for (const [start, count, s, min, max] of rows) {
        const w = start - (start % width);
        const last = out.at(-1);
        if (last?.[0] !== w) {
          if (last) last[2] = sum.value;
          sum = new CompensatedSum();
          out.push([w, 0, 0, min, max]);
        }
        const cur = out.at(-1) as [number, number, number, number, number];
        cur[1] += count;
        sum.add(s);
        cur[3] = Math.min(cur[3], min);
        cur[4] = Math.max(cur[4], max);
      }
      const last = out.at(-1);
      if (last) last[2] = sum.value;
      return out;
    };
    const hours = total(fiveMinutes, HOUR);
    expect(await t.store.telemetry.windows(id, "1h", D, D + DAY)).toEqual(hours);
    expect(await t.store.telemetry.windows(id, "1d", D, D + DAY)).toEqual(total(hours, DAY));
    expect(await t.store.telemetry.windows(id, "1h", D + HOUR, D + 2 * HOUR)).toEqual(hours.slice(1, 2));
    const rollups = await t.store.telemetry.seriesRollups(p, D, D + DAY);
    expect(rollups[0]?.totals?.count).toBe(502);
  });

  it("stops: writes under way commit and are rolled up; later writes are refused until the next start", async () => {
    const writes = [0, 1, 2].map((i) => write(batch(series(a, "flow", [[D + i * MIN5, i + 1]]))));
    await t.store.telemetry.stop();
    expect(t.store.telemetry.started).toBe(false);
    expect((await Promise.all(writes)).map((w) => w.result.accepted)).toEqual([1, 1, 1]);
    const id = await idOf(a, "flow");
    expect(await t.store.telemetry.windows(id, "5m", D, D + HOUR)).toEqual([
      [D, 1, 1, 1, 1],
      [D + MIN5, 1, 2, 2, 2],
      [D + 2 * MIN5, 1, 3, 3, 3],
    ]);
    await expect(write(batch(series(a, "flow", [[D + HOUR, 1]])))).rejects.toMatchObject({
      code: "Unavailable",
    });
    await t.store.telemetry.start({ blockPoints: 0 }, quiet);
    expect((await write(batch(series(a, "flow", [[D + HOUR, 1]])))).result.accepted).toBe(1);
  });

  it("tells when each asset last reported, and which project an asset is in until it goes", async () => {
    await write(
      batch(
        series(a, "flow", [[D + 5, 1]]),
        series(a, "level", [[D + 9, 1]]),
        series(b, "level", [[D + 7, 1]]),
      ),
    );
    await write(batch(series(a, "flow", [[D + 1, 1]])));
    const reports = await t.store.telemetry.lastReports();
    expect([...reports].sort((x, y) => x.assetId.localeCompare(y.assetId))).toEqual(
      [
        { assetId: a, lastTs: D + 9 },
        { assetId: b, lastTs: D + 7 },
      ].sort((x, y) => x.assetId.localeCompare(y.assetId)),
    );
    expect(await t.store.telemetry.projectOfAsset(b)).toBe(p);
    expect(await t.store.telemetry.projectOfAsset("no-such-asset")).toBeUndefined();
    await t.store.field.deleteAsset(b);
    await expect.poll(() => t.store.telemetry.projectOfAsset(b)).toBeUndefined();
    await expect(write(batch(series(b, "level", [[D + 8, 1]])))).rejects.toMatchObject({ code: "NotFound" });
  });
}
