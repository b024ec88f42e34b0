import { afterAll, describe, expect, it } from "vitest";
import { openDatabase } from "../store/sqlite/client.ts";
import { PackStatements, packNext } from "../store/sqlite/telemetry/pack-block.ts";
import { sqliteProbe } from "../testing/table-probe.ts";
import { ChangeWatch, snapshot } from "./db-snapshot.ts";

describe("the audit's database snapshot (on a SQLite database: its packer moves the points)", () => {
  const { sqlite, close } = openDatabase(":memory:");
  const probe = sqliteProbe(sqlite);
  afterAll(close);

  it("sees stored telemetry points, not where packing put them", async () => {
    const insert = sqlite.prepare("INSERT INTO telemetry_raw (series_id, ts, value) VALUES (?, ?, ?)");
    for (let i = 0; i < 500; i++) insert.run(7, 1_700_000_000_000 + i * 1000, i / 4);
    const before = await snapshot(probe);
    expect(before.get("telemetry_raw")?.rows).toBe(500);
    expect(before.has("telemetry_packed")).toBe(false);

    const watch = new ChangeWatch(probe);
    await watch.mark();
    const stmts = new PackStatements(sqlite);
    expect(sqlite.transaction(() => packNext(stmts, 7, Number.MAX_SAFE_INTEGER)).immediate()?.rawRows).toBe(
      500,
    );
    expect(sqlite.prepare("SELECT count(*) FROM telemetry_raw").pluck().get()).toBe(0);
    expect(await watch.changed()).toEqual([]);
    expect(await snapshot(probe)).toEqual(before);

    insert.run(7, 1_700_000_000_500, 9);
    expect(await watch.changed()).toEqual(["telemetry_raw: 500 → 501 rows"]);
  });
});
