import type { Pool } from "pg";
import { Registry } from "prom-client";
import { afterAll, beforeAll, expect } from "vitest";
import { postgresMissing, startPostgres, type TestPostgres } from "../../../../scripts/testing/postgres.ts";
import { requirePeer } from "../../../../scripts/testing/require-peer.ts";
import type { TelemetryPoint } from "../../../../shared/telemetry/batch.ts";
import { newAsset, newProject } from "../../contract/testing/fixtures.ts";
import { connectPool } from "../client.ts";
import { PostgresStore } from "../postgres-store.ts";
import { clientQuery } from "./query.ts";
import { type InTransaction, PgRollupRunner } from "./rollup-runner.ts";

const postgres = requirePeer("postgresql-15", postgresMissing);

const D = Date.UTC(2026, 0, 10);
const quiet = { warn() {}, error() {}, info() {}, metrics: new Registry(), now: () => Date.now() };

function inTransactionOn(pool: Pool): InTransaction {
  return async (work) => {
    const client = await pool.connect();
    try {
      await client.query("BEGIN");
      const result = await work(clientQuery(client));
      await client.query("COMMIT");
      return result;
    } catch (err) {
      await client.query("ROLLBACK");
      throw err;
    } finally {
      client.release();
    }
  };
}

/** Every rollup row and watermark of the database, in key order. */
async function rollups(pool: Pool) {
  const read = async (text: string) => (await pool.query({ text, rowMode: "array" })).rows;
  return {
    m5: await read("SELECT series_id, bucket, count, sum, min, max FROM telemetry_rollup_5m ORDER BY 1, 2"),
    h1: await read("SELECT series_id, bucket, count, sum, min, max FROM telemetry_rollup_1h ORDER BY 1, 2"),
    marks: await read("SELECT id, rolled_to FROM telemetry_series ORDER BY id"),
  };
}

postgres.describe("PostgreSQL roll-ups (store/postgres/telemetry)", () => {
  let instance: TestPostgres;
  let made = 0;
  beforeAll(async () => {
    instance = await startPostgres();
  });
  afterAll(async () => {
    await instance?.stop();
  });

  /** A new database holding the same three series: 6,000, 4,500 and 10 readings, not rolled up. */
  async function filled(): Promise<{ store: PostgresStore; pool: Pool; ids: number[] }> {
    const name = `rollups_${++made}`;
    const admin = connectPool(instance.url, { max: 1 });
    await admin.query(`CREATE DATABASE ${name} ENCODING 'UTF8' LOCALE 'C' TEMPLATE template0`);
    await admin.end();
    const url = instance.url.replace(/\/postgres$/, `/${name}`);
    const store = await PostgresStore.open(url);
    const p = (await store.field.insertProject(newProject("P"))).id;
    const a = (await store.field.insertAsset(newAsset(p, "A", "asset-a"))).id;
    await store.telemetry.start({ blockPoints: 0 }, quiet);
    const readings = (n: number, k: number): TelemetryPoint[] =>
      Array.from({ length: n }, (_, i) => [D + i * 1_000 + k, 0.1 * (i % 97) + 1 / (i + k + 3)]);
    await store.telemetry.write(
      {
        source: "agent",
        series: [
          { projectId: p, assetId: a, variable: "a", points: readings(6_000, 1) },
          { projectId: p, assetId: a, variable: "b", points: readings(4_500, 2) },
          { projectId: p, assetId: a, variable: "c", points: readings(10, 3) },
        ],
      },
      "2026-01",
    );
    const ids = (await store.telemetry.assetSeries(a)).map((s) => s.id);
    return { store, pool: connectPool(url), ids };
  }

  postgres.it(
    "rolls up the same rows in one statement per step as series by series, a cut-short roll-up rebuilt",
    async () => {
      const one = await filled();
      const other = await filled();
      try {
        // The writer's own background pass is stopped first: only these runners roll up.
        await one.store.telemetry.stop();
        await other.store.telemetry.stop();
        await one.pool.query("UPDATE telemetry_series SET rolled_to = $1", [Number.MIN_SAFE_INTEGER]);
        await one.pool.query("TRUNCATE telemetry_rollup_5m, telemetry_rollup_1h");
        await other.pool.query("UPDATE telemetry_series SET rolled_to = $1", [Number.MIN_SAFE_INTEGER]);
        await other.pool.query("TRUNCATE telemetry_rollup_5m, telemetry_rollup_1h");
        const batched = new PgRollupRunner(inTransactionOn(one.pool));
        const serial = new PgRollupRunner(inTransactionOn(other.pool), { batched: false });
        // Series b first: the budget of 5,000 rows is shared in the order asked.
        const order = [one.ids[1], one.ids[0], one.ids[2]] as number[];
        await batched.rollUp(order);
        await serial.rollUp(order);
        const expected = await rollups(other.pool);
        expect(expected.m5.length).toBeGreaterThan(0);
        expect(await rollups(one.pool)).toEqual(expected);
        const firstBucket = expected.m5[0] as unknown[];
        expect(firstBucket.slice(0, 3)).toEqual([String(one.ids[0]), String(D), "300"]);

        // A roll-up cut short: the newest bucket of a series lacks its last reading, and the
        // watermark is unknown (rolled_to null): it is found and that bucket rebuilt.
        for (const pool of [one.pool, other.pool]) {
          await pool.query(
            `UPDATE telemetry_rollup_5m SET count = count - 1, sum = sum - 1
              WHERE series_id = $1 AND bucket = (SELECT max(bucket) FROM telemetry_rollup_5m WHERE series_id = $1)`,
            [one.ids[0]],
          );
          await pool.query("UPDATE telemetry_series SET rolled_to = NULL");
        }
        await batched.rollUpAll();
        await serial.rollUpAll();
        const rebuilt = await rollups(other.pool);
        expect(rebuilt.m5).toEqual(expected.m5);
        expect(rebuilt.h1).toEqual(expected.h1);
        expect(await rollups(one.pool)).toEqual(rebuilt);
      } finally {
        for (const t of [one, other]) {
          await t.pool.end();
          await t.store.close();
        }
      }
    },
  );

  postgres.it(
    "keeps the rollups whole with two servers writing and rolling up the same series, and tells both of a deleted asset",
    async () => {
      const { store: one, pool, ids } = await filled();
      const other = await PostgresStore.open(instance.url.replace(/\/postgres$/, `/rollups_${made}`));
      try {
        await other.telemetry.start({ blockPoints: 0 }, quiet);
        const project = (await one.field.projects())[0]?.id ?? "";
        const write = (store: PostgresStore, points: TelemetryPoint[]) =>
          store.telemetry.write(
            { source: "agent", series: [{ projectId: project, assetId: "asset-a", variable: "c", points }] },
            "2026-01",
          );
        // Live readings from one server, rolled up by the other; backfill into rolled buckets;
        // both rolling up at once.
        await write(one, [
          [D + 20_000, 1],
          [D + 21_000, 2],
        ]);
        await other.telemetry.rollUp(ids);
        await write(other, [
          [D + 500, 4],
          [D + 22_000, 8],
        ]);
        await write(one, [
          [D + 600, 16],
          [D + 23_000, 32],
        ]);
        await Promise.all([
          one.telemetry.rollUp(ids),
          other.telemetry.rollUp(ids),
          write(other, [[D + 24_000, 64]]),
        ]);
        await one.telemetry.rollUpAll();
        const { rows } = await pool.query({
          text: `SELECT sum(count)::float8, sum(sum) FROM telemetry_rollup_5m WHERE series_id = $1`,
          values: [ids[2]],
          rowMode: "array",
        });
        const first = Array.from({ length: 10 }, (_, i) => 0.1 * i + 1 / (i + 6));
        const [count, sum] = rows[0] as [number, number];
        expect(count).toBe(17); // every reading once: none missed, none counted twice
        expect(sum).toBeCloseTo(first.reduce((x, y) => x + y, 0) + 127, 9);

        expect(await one.telemetry.projectOfAsset("asset-a")).toBe(project);
        expect(await other.telemetry.projectOfAsset("asset-a")).toBe(project);
        await other.field.deleteAsset("asset-a");
        await expect.poll(() => one.telemetry.projectOfAsset("asset-a")).toBeUndefined();
        expect(await other.telemetry.projectOfAsset("asset-a")).toBeUndefined();
      } finally {
        await other.close();
        await pool.end();
        await one.close();
      }
    },
  );
});
