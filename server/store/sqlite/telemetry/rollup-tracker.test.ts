import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DatabaseHandle, openDatabase } from "../client.ts";
import { ROLLUP_SERIES_PER_TRANSACTION, RollupTracker } from "./rollup-tracker.ts";

/*
 * A roll-up transaction is bounded by series as well as by rows: with thousands of live series
 * each holding a few new rows, a row budget alone let one transaction hold the database (and every
 * live commit queued behind it) for up to 2 s (the Sparkplug bench's event-loop delay).
 */
describe("roll-up tracker", () => {
  let dir: string;
  let handle: DatabaseHandle;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "caudal-rollup-tracker-"));
    handle = openDatabase(join(dir, "caudal.db"));
  });
  afterAll(() => {
    handle.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("rolls at most ROLLUP_SERIES_PER_TRANSACTION series per step, and all of them in the end", () => {
    const series = 2 * ROLLUP_SERIES_PER_TRANSACTION + 50;
    const start = Date.UTC(2026, 10, 1);
    const insert = handle.sqlite.prepare("INSERT INTO telemetry_raw (series_id, ts, value) VALUES (?, ?, ?)");
    handle.sqlite.transaction(() => {
      for (let id = 1; id <= series; id++)
        for (let s = 0; s < 3; s++) insert.run(id, start + s * 1000, id + s);
    })();
    const tracker = new RollupTracker(handle.sqlite);
    for (let id = 1; id <= series; id++) tracker.markPending(id);

    const done: boolean[] = [];
    const pending: number[] = [];
    do {
      done.push(tracker.step());
      pending.push(tracker.pendingSeries);
    } while (!done.at(-1));

    expect(pending).toEqual([series - ROLLUP_SERIES_PER_TRANSACTION, 50, 0]);
    const rolled = handle.sqlite
      .prepare("SELECT count(*) AS n, sum(count) AS points, sum(sum) AS total FROM telemetry_rollup_5m")
      .get();
    // Each series: values id, id+1, id+2 in one 5-minute bucket.
    const total = Array.from({ length: series }, (_, i) => 3 * (i + 1) + 3).reduce((a, b) => a + b, 0);
    expect(rolled).toEqual({ n: series, points: 3 * series, total });
  });

  it("a roll-up between a commit and its report rebuilds the buckets that commit touched", () => {
    const id = 900_001;
    const start = Date.UTC(2026, 10, 2);
    const insert = handle.sqlite.prepare("INSERT INTO telemetry_raw (series_id, ts, value) VALUES (?, ?, ?)");
    const tracker = new RollupTracker(handle.sqlite);
    const from = tracker.stateOf(id).rolledTo;
    // Commit A stores and reports three readings; commit B stores one between them…
    const a = [start + 10_000, start + 30_000, start + 50_000];
    for (const [i, ts] of a.entries()) insert.run(id, ts, i + 1);
    tracker.deferred(id, from, a, [1, 2, 3]);
    insert.run(id, start + 20_000, 4);
    // …and a roll-up runs before B reports it, from A's folded readings alone.
    while (!tracker.step());
    tracker.deferred(id, from, [start + 20_000], [4]);
    while (!tracker.step());

    const bucket = handle.sqlite
      .prepare("SELECT count, sum, min, max FROM telemetry_rollup_5m WHERE series_id = ?")
      .all(id);
    expect(bucket).toEqual([{ count: 4, sum: 10, min: 1, max: 4 }]);
  });
});
