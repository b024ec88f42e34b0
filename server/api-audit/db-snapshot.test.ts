import { afterAll, describe, expect, it } from "vitest";
import { openDatabase } from "../store/sqlite/client.ts";
import { PackStatements, packNext } from "../store/sqlite/telemetry/pack-block.ts";
import { ChangeWatch, snapshot } from "./db-snapshot.ts";

describe("the audit's database snapshot", () => {
  const { sqlite, close } = openDatabase(":memory:");
  afterAll(close);

  it("sees stored telemetry points, not where packing put them", () => {
    const insert = sqlite.prepare("INSERT INTO telemetry_raw (series_id, ts, value) VALUES (?, ?, ?)");
    for (let i = 0; i < 500; i++) insert.run(7, 1_700_000_000_000 + i * 1000, i / 4);
    const before = snapshot(sqlite);
    expect(before.get("telemetry_raw")?.rows).toBe(500);
    expect(before.has("telemetry_packed")).toBe(false);

    const watch = new ChangeWatch(sqlite);
    watch.mark();
    const stmts = new PackStatements(sqlite);
    expect(sqlite.transaction(() => packNext(stmts, 7, Number.MAX_SAFE_INTEGER)).immediate()?.rawRows).toBe(
      500,
    );
    expect(sqlite.prepare("SELECT count(*) FROM telemetry_raw").pluck().get()).toBe(0);
    expect(watch.changed()).toEqual([]);
    expect(snapshot(sqlite)).toEqual(before);

    insert.run(7, 1_700_000_000_500, 9);
    expect(watch.changed()).toEqual(["telemetry_raw: 500 → 501 rows"]);
  });
});
