import { randomUUID } from "node:crypto";
import { Registry } from "prom-client";
import { afterEach, beforeEach, expect, it } from "vitest";
import type { TelemetryBatch, TelemetryPoint } from "../../../../shared/telemetry/batch.ts";
import type { BatchTransaction, TelemetryWriterHost } from "../../ports/telemetry-store.ts";
import type { ContractBackend, StoreUnderTest } from "./backend.ts";
import { newAsset, newProject } from "./fixtures.ts";

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
/** Midnight UTC, a few days before the writer's clock. */
const BASE = Date.UTC(2026, 0, 10);
const NOW = BASE + 3 * DAY;
const PERIOD = "2026-01";

/**
 * TelemetryStore's write side and its raw and history reads (server/store/ports/telemetry-store.ts):
 * the writer's lifecycle, what a write stores and answers, a BatchTransaction committed with its
 * points or not at all, retention and packing, and what readers then see.
 */
export function telemetryWriterContract(backend: ContractBackend): void {
  let t: StoreUnderTest;
  let p: string;
  let a: string;
  let b: string;
  const logged: { level: string; message: string }[] = [];
  const host: TelemetryWriterHost = {
    warn: (message) => void logged.push({ level: "warn", message }),
    error: (message) => void logged.push({ level: "error", message }),
    info: (message) => void logged.push({ level: "info", message }),
    metrics: new Registry(),
    now: () => NOW,
  };
  beforeEach(async () => {
    logged.length = 0;
    t = await backend.open();
    p = (await t.store.field.insertProject(newProject("P"))).id;
    const [assetA, assetB] = [newAsset(p, "A"), newAsset(p, "B")];
    await t.seed.assets([assetA, assetB]);
    a = assetA.id;
    b = assetB.id;
    await t.store.telemetry.start({ blockPoints: 16 }, host);
  });
  afterEach(async () => {
    await t.store.telemetry.stop();
    await t.close();
  });

  /** `n` readings a minute apart from `from`, value = minute index + `offset`. */
  const minutes = (from: number, n: number, offset = 0): TelemetryPoint[] =>
    Array.from({ length: n }, (_, i) => [from + i * MIN, i + offset] as const);
  const batch = (
    assetId: string,
    variable: string,
    points: TelemetryPoint[],
    unit?: string,
  ): TelemetryBatch => ({
    source: "http",
    series: [
      unit === undefined
        ? { projectId: p, assetId, variable, points }
        : { projectId: p, assetId, variable, unit, points },
    ],
  });
  const seriesId = async (assetId: string, variable: string) => {
    const found = (await t.store.telemetry.assetSeries(assetId, [variable]))[0];
    if (!found) throw new Error(`no series ${variable}`);
    return found.id;
  };
  const all = async (assetId: string, variable: string) =>
    t.store.telemetry
      .pointReader(4)
      .ascending(
        await seriesId(assetId, variable),
        Number.MIN_SAFE_INTEGER,
        Number.MAX_SAFE_INTEGER,
        100_000,
      );

  it("starts and stops (idempotently); a stopped writer refuses writes, and reads go on", async () => {
    expect(t.store.telemetry.started).toBe(true);
    await t.store.telemetry.start({ blockPoints: 16 }, host);
    const pending = t.store.telemetry.write(batch(a, "v", minutes(BASE, 3)), PERIOD);
    await t.store.telemetry.stop();
    await t.store.telemetry.stop();
    expect(t.store.telemetry.started).toBe(false);
    // What was queued committed first; without a writer (an HTTP worker thread's store) reads still answer.
    expect((await pending).result).toEqual({ accepted: 3, duplicates: 0 });
    expect(await t.store.telemetry.projectOfAsset(a)).toBe(p);
    expect(await all(a, "v")).toEqual(minutes(BASE, 3));
    expect(await t.store.telemetry.lastReports()).toEqual([{ assetId: a, lastTs: BASE + 2 * MIN }]);
    await expect(t.store.telemetry.write(batch(a, "v", minutes(BASE, 1)), PERIOD)).rejects.toMatchObject({
      code: "Unavailable",
    });
    await t.store.telemetry.start({ blockPoints: 16 }, host);
    expect(t.store.telemetry.started).toBe(true);
  });

  it("stores a batch once: duplicates in it or already stored are counted, not stored, nor billed", async () => {
    const first = await t.store.telemetry.write(batch(a, "pressure", minutes(BASE, 3), "psi"), PERIOD);
    expect(first.result).toEqual({ accepted: 3, duplicates: 0 });
    expect(first.committed.series).toEqual([
      { projectId: p, assetId: a, variable: "pressure", unit: "psi", points: minutes(BASE, 3) },
    ]);
    // Two already stored, one repeated within the write; the unit comes from the series.
    const again = await t.store.telemetry.write(
      batch(a, "pressure", [...minutes(BASE + MIN, 3, 50), [BASE + 3 * MIN, 99]]),
      PERIOD,
    );
    expect(again.result).toEqual({ accepted: 1, duplicates: 3 });
    expect(again.committed.series).toEqual([
      {
        projectId: p,
        assetId: a,
        variable: "pressure",
        unit: "psi",
        points: [[BASE + 3 * MIN, 52]],
      },
    ]);
    expect(await all(a, "pressure")).toEqual([...minutes(BASE, 3), [BASE + 3 * MIN, 52]]);
    expect(await t.store.billing.telemetryPoints(p, PERIOD)).toBe(4);
    expect(await t.store.telemetry.projectOfAsset(a)).toBe(p);
    expect(await t.store.telemetry.projectOfAsset(randomUUID())).toBeUndefined();
  });

  it("lists an asset's series in variable order, filtered by name; unknown names match nothing", async () => {
    for (const variable of ["b", "a", "B", "é"]) {
      await t.store.telemetry.write(batch(a, variable, minutes(BASE, 1)), PERIOD);
    }
    await t.store.telemetry.write(batch(b, "other", minutes(BASE, 1), "bar"), PERIOD);
    const listed = await t.store.telemetry.assetSeries(a);
    expect(listed.map((s) => s.variable)).toEqual(["B", "a", "b", "é"]);
    expect(await t.store.telemetry.assetSeries(b)).toEqual([
      { id: expect.any(Number), variable: "other", unit: "bar" },
    ]);
    expect((await t.store.telemetry.assetSeries(a, ["é", "nope", "a"])).map((s) => s.variable)).toEqual([
      "a",
      "é",
    ]);
    expect(await t.store.telemetry.assetSeries(a, [])).toEqual([]);
  });

  it("reads points in a range, both ends inclusive, ascending or descending, at most `limit`", async () => {
    await t.store.telemetry.write(batch(a, "v", minutes(BASE, 40)), PERIOD);
    const id = await seriesId(a, "v");
    const reader = t.store.telemetry.pointReader(4);
    expect(await reader.ascending(id, BASE + 10 * MIN, BASE + 12 * MIN, 10)).toEqual(
      minutes(BASE + 10 * MIN, 3, 10),
    );
    expect(await reader.ascending(id, BASE + 10 * MIN, BASE + 20 * MIN, 2)).toEqual(
      minutes(BASE + 10 * MIN, 2, 10),
    );
    expect(await reader.descending(id, BASE, BASE + 39 * MIN, 2)).toEqual([
      [BASE + 39 * MIN, 39],
      [BASE + 38 * MIN, 38],
    ]);
    expect(await reader.descending(id, BASE + 41 * MIN, BASE + 50 * MIN, 5)).toEqual([]);
  });

  it("commits a BatchTransaction with its points: a claim refused leaves the batch out, a failure takes all back", async () => {
    const agent = randomUUID();
    const claimSeq = (seq: number, fail = false): BatchTransaction => ({
      claim: (tx) => tx.agents.recordBatch(p, agent, seq, 1, new Date(NOW)),
      complete: async () => {
        if (fail) throw new Error("alarms failed");
      },
    });
    expect(
      (await t.store.telemetry.write(batch(a, "v", minutes(BASE, 1)), PERIOD, claimSeq(1))).result,
    ).toEqual({
      accepted: 1,
      duplicates: 0,
    });
    // The same seq again: claimed already, so none of its points are written.
    const replay = await t.store.telemetry.write(batch(a, "v", minutes(BASE + MIN, 1)), PERIOD, claimSeq(1));
    expect(replay.result).toEqual({ accepted: 0, duplicates: 0 });
    expect(replay.committed.series).toEqual([]);
    // Sharing a commit with a good write: the failing one is rolled back alone, its claim too.
    const [failed, fine] = await Promise.allSettled([
      t.store.telemetry.write(batch(a, "v", minutes(BASE + 2 * MIN, 1)), PERIOD, claimSeq(2, true)),
      t.store.telemetry.write(batch(b, "v", minutes(BASE, 1)), PERIOD),
    ]);
    expect(failed).toMatchObject({ status: "rejected", reason: { message: "alarms failed" } });
    expect(fine).toMatchObject({ status: "fulfilled", value: { result: { accepted: 1, duplicates: 0 } } });
    expect(await all(a, "v")).toEqual(minutes(BASE, 1));
    expect(await t.store.agents.recordBatch(p, agent, 2, 1, new Date(NOW))).toBe(true);
    expect(await t.store.billing.telemetryPoints(p, PERIOD)).toBe(2);
  });

  it("answers each of many concurrent writes on its own terms, however they share commits", async () => {
    const agent = randomUUID();
    const gone = newAsset(p, "Gone");
    await t.seed.assets([gone]);
    await t.store.telemetry.write(batch(gone.id, "v", minutes(BASE, 1)), PERIOD);
    await t.store.field.deleteAsset(gone.id);
    const claimSeq = (seq: number, fail = false): BatchTransaction => ({
      claim: (tx) => tx.agents.recordBatch(p, agent, seq, 1, new Date(NOW)),
      complete: async () => {
        if (fail) throw new Error("alarms failed");
      },
    });
    await t.store.agents.recordBatch(p, agent, 1, 1, new Date(NOW));
    // 24 writes at once: each minute of v written twice (the second all duplicates), plus a
    // replayed seq, a failing complete(), an asset gone and a later billing period among them.
    const writes = Array.from({ length: 20 }, (_, i) =>
      t.store.telemetry.write(batch(a, "v", minutes(BASE + (i % 10) * 10 * MIN, 10)), PERIOD),
    );
    const replayed = t.store.telemetry.write(batch(b, "w", minutes(BASE, 5)), PERIOD, claimSeq(1));
    const failing = t.store.telemetry.write(batch(b, "w", minutes(BASE, 5)), PERIOD, claimSeq(2, true));
    const lost = t.store.telemetry.write(batch(gone.id, "v", minutes(BASE + MIN, 3)), PERIOD);
    const february = t.store.telemetry.write(batch(b, "x", minutes(BASE, 7)), "2026-02");
    const results = await Promise.allSettled([...writes, replayed, failing, lost, february]);
    const accepted = results.slice(0, 20).map((r) => (r.status === "fulfilled" ? r.value.result : r.reason));
    // Of each pair (i, i + 10) one stored the 10 readings and the other found them duplicates.
    for (let i = 0; i < 10; i++) {
      expect([accepted[i], accepted[i + 10]].sort((x, y) => y.accepted - x.accepted)).toEqual([
        { accepted: 10, duplicates: 0 },
        { accepted: 0, duplicates: 10 },
      ]);
    }
    expect(results[20]).toMatchObject({
      status: "fulfilled",
      value: { result: { accepted: 0, duplicates: 0 } },
    });
    expect(results[21]).toMatchObject({ status: "rejected", reason: { message: "alarms failed" } });
    expect(results[22]).toMatchObject({ status: "rejected", reason: { code: "NotFound" } });
    expect(results[23]).toMatchObject({
      status: "fulfilled",
      value: { result: { accepted: 7, duplicates: 0 } },
    });
    expect(await all(a, "v")).toEqual(
      Array.from({ length: 10 }, (_, i) => minutes(BASE + i * 10 * MIN, 10)).flat(),
    );
    expect((await t.store.telemetry.assetSeries(b)).map((s) => s.variable)).toEqual(["x"]);
    expect(await t.store.billing.telemetryPoints(p, PERIOD)).toBe(1 + 100);
    expect(await t.store.billing.telemetryPoints(p, "2026-02")).toBe(7);
    // The failing write's claim went back with it.
    expect(await t.store.agents.recordBatch(p, agent, 2, 1, new Date(NOW))).toBe(true);
  });

  it("fails a write whose asset has gone with NotFound, storing nothing of it", async () => {
    await t.store.telemetry.write(batch(a, "v", minutes(BASE, 1)), PERIOD);
    await t.store.field.deleteAsset(a);
    await expect(
      t.store.telemetry.write(batch(a, "v", minutes(BASE + MIN, 1)), PERIOD),
    ).rejects.toMatchObject({
      code: "NotFound",
    });
    expect(await t.store.telemetry.projectOfAsset(a)).toBeUndefined();
    expect(await t.store.billing.telemetryPoints(p, PERIOD)).toBe(1);
  });

  it("serves history windows of 5 minutes, hours and UTC days once rolled up, and each asset's last report", async () => {
    // 3 hours on day one (value = minute index), 10 minutes on day two.
    await t.store.telemetry.write(batch(a, "v", minutes(BASE, 180)), PERIOD);
    await t.store.telemetry.write(batch(a, "v", minutes(BASE + DAY, 10, 1000)), PERIOD);
    await t.store.telemetry.write(batch(b, "w", minutes(BASE + 5 * MIN, 2)), PERIOD);
    const id = await seriesId(a, "v");
    await t.store.telemetry.rollUp([id]);
    expect(await t.store.telemetry.windows(id, "5m", BASE, BASE + 10 * MIN)).toEqual([
      [BASE, 5, 0 + 1 + 2 + 3 + 4, 0, 4],
      [BASE + 5 * MIN, 5, 5 + 6 + 7 + 8 + 9, 5, 9],
    ]);
    const hourSum = (h: number) => (60 * (120 * h + 59)) / 2;
    expect(await t.store.telemetry.windows(id, "1h", BASE + HOUR, BASE + DAY + HOUR)).toEqual([
      [BASE + HOUR, 60, hourSum(1), 60, 119],
      [BASE + 2 * HOUR, 60, hourSum(2), 120, 179],
      [BASE + DAY, 10, 10 * 1000 + 45, 1000, 1009],
    ]);
    expect(await t.store.telemetry.windows(id, "1d", BASE, BASE + 2 * DAY)).toEqual([
      [BASE, 180, (180 * 179) / 2, 0, 179],
      [BASE + DAY, 10, 10 * 1000 + 45, 1000, 1009],
    ]);
    expect(await t.store.telemetry.windows(id, "5m", BASE + 3 * HOUR, BASE + DAY)).toEqual([]);
    const reports = await t.store.telemetry.lastReports();
    expect(reports.sort((x, y) => x.lastTs - y.lastTs)).toEqual([
      { assetId: b, lastTs: BASE + 6 * MIN },
      { assetId: a, lastTs: BASE + DAY + 9 * MIN },
    ]);
  });

  it("settles the rollups of a project's series at once (the writer's own pass is 10 s away); stopped, it has none to settle", async () => {
    await t.store.telemetry.write(batch(a, "v", minutes(BASE, 10)), PERIOD);
    await t.store.telemetry.write(batch(b, "w", minutes(BASE, 3, 100)), PERIOD);
    await t.store.telemetry.settleRollups(p);
    const totals = (await t.store.telemetry.seriesRollups(p, BASE, BASE + HOUR)).map((s) => [
      s.variable,
      s.totals,
    ]);
    expect(totals.sort()).toEqual([
      ["v", { count: 10, sum: 45, min: 0, max: 9, firstBucket: BASE, lastBucket: BASE + 5 * MIN }],
      ["w", { count: 3, sum: 303, min: 100, max: 102, firstBucket: BASE, lastBucket: BASE }],
    ]);
    await t.store.telemetry.stop();
    await t.store.telemetry.settleRollups(p);
    await t.store.telemetry.settleRollups("no-such-project");
  });

  it("writes `blockPoints` readings that cannot collide straight into blocks; fewer, or among stored ones, as raw rows", async () => {
    // 16 new readings of v are a block; 15 of w are raw rows.
    await t.store.telemetry.write(batch(a, "v", minutes(BASE + HOUR, 16)), PERIOD);
    await t.store.telemetry.write(batch(a, "w", minutes(BASE + HOUR, 15)), PERIOD);
    // 20 older readings where v stores nothing: a block too.
    await t.store.telemetry.write(batch(a, "v", minutes(BASE, 20, 100)), PERIOD);
    // 16 older readings within the first block's span: raw rows, each checked.
    const between = minutes(BASE + HOUR + 30_000, 16, 200);
    await t.store.telemetry.write(batch(a, "v", between), PERIOD);
    // The first block's readings again, and one more: duplicates count nowhere.
    expect((await t.store.telemetry.write(batch(a, "v", minutes(BASE + HOUR, 17)), PERIOD)).result).toEqual({
      accepted: 1,
      duplicates: 16,
    });
    const v = [
      ...minutes(BASE, 20, 100),
      ...[...minutes(BASE + HOUR, 17), ...between].sort((x, y) => x[0] - y[0]),
    ];
    expect(await all(a, "v")).toEqual(v);
    const packed = await t.store.telemetry.pack(BASE + DAY);
    // Raw rows packed: w's 15, v's 16 in between and its 17th.
    expect(packed.rawRows).toBe(15 + 16 + 1);
    expect(await all(a, "v")).toEqual(v);
    expect(await all(a, "w")).toEqual(minutes(BASE + HOUR, 15));
    const id = await seriesId(a, "v");
    await t.store.telemetry.rollUp([id]);
    expect(await t.store.telemetry.windows(id, "1h", BASE, BASE + DAY)).toEqual([
      [BASE, 20, 20 * 100 + (20 * 19) / 2, 100, 119],
      [BASE + HOUR, 33, (17 * 16) / 2 + 16 * 200 + (16 * 15) / 2, 0, 215],
    ]);
  });

  it("deletes raw readings before a cutoff and keeps their rollups; packed readings read back the same", async () => {
    await t.store.telemetry.write(batch(a, "v", minutes(BASE, 120)), PERIOD);
    await t.store.telemetry.write(batch(a, "v", minutes(BASE + DAY, 120, 500)), PERIOD);
    const id = await seriesId(a, "v");
    await t.store.telemetry.pack(BASE + DAY + HOUR);
    expect(await all(a, "v")).toEqual([...minutes(BASE, 120), ...minutes(BASE + DAY, 120, 500)]);
    const deleted = await t.store.telemetry.deleteRawBefore(BASE + DAY);
    expect(deleted).toBe(120);
    expect(await all(a, "v")).toEqual(minutes(BASE + DAY, 120, 500));
    await t.store.telemetry.rollUp([id]);
    expect(await t.store.telemetry.windows(id, "1d", BASE, BASE + 2 * DAY)).toEqual([
      [BASE, 120, (120 * 119) / 2, 0, 119],
      [BASE + DAY, 120, 120 * 500 + (120 * 119) / 2, 500, 619],
    ]);
    expect(logged.filter((l) => l.level !== "info")).toEqual([]);
  });
}
