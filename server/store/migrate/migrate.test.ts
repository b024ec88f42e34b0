import { spawnSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { getTableName, is } from "drizzle-orm";
import { drizzle } from "drizzle-orm/better-sqlite3";
import { PgTable } from "drizzle-orm/pg-core";
import { SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Pool } from "pg";
import { afterAll, beforeAll, expect } from "vitest";
import { postgresMissing, startPostgres, type TestPostgres } from "../../../scripts/testing/postgres.ts";
import { requirePeer } from "../../../scripts/testing/require-peer.ts";
import { verifyAuditChain } from "../../services/audit/verify-audit.ts";
import { STEP_MS } from "../../testing/fixtures/two-factor-fixtures.ts";
import { TestServer } from "../../testing/harness.ts";
import { connectPool, openPostgres } from "../postgres/client.ts";
import { PostgresStore } from "../postgres/postgres-store.ts";
import * as pgSchema from "../postgres/schema/index.ts";
import * as sqliteSchema from "../sqlite/schema/index.ts";
import { SqliteStore } from "../sqlite/sqlite-store.ts";
import {
  type MigrateOptions,
  MigrationError,
  MigrationInterrupted,
  migrateSqliteToPostgres,
} from "./migrate.ts";
import { migrationPlan } from "./plan.ts";
import { SqliteSource } from "./source.ts";
import { PostgresTarget } from "./target.ts";
import { type Answer, apiAnswers, logIn, type Window } from "./testing/api-answers.ts";
import { type Deployment, fillDeployment } from "./testing/fill-deployment.ts";
import { verifyMigration } from "./verify.ts";

const postgres = requirePeer("postgresql-15", postgresMissing);
const root = join(import.meta.dirname, "../../..");
// Both servers answer the same requests over seconds: an automatic deployment at start (about 2 s
// after it, for every auto_deploy project) would land between two reads on a loaded machine.
const HELD_BACK_MS = 10 * 60_000;

postgres.describe("caudal-server migrate: a SQLite site onto PostgreSQL", () => {
  let dir: string;
  let file: string;
  let site: Deployment;
  let pg: TestPostgres;
  let admin: Pool;
  const plans = migrationPlan();
  // The server on PostgreSQL gets the site's keys, as an operator carries them over: two-factor
  // secrets stay readable and access tokens stay valid.
  const keys = {
    TOTP_SECRET_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
    JWT_SECRET: randomBytes(32).toString("hex"),
  };
  /** What the SQLite server answered before it stopped, and as of which clock. */
  let before: {
    answers: Record<string, Answer>;
    logins: Record<string, unknown>;
    window: Window;
    clockOffsetMs: number;
    adminToken: string;
  };

  beforeAll(async () => {
    // Readings land as raw rows (no blocks straight from ingest), so packing makes the blocks.
    const t = await TestServer.start(
      { TELEMETRY_BLOCK_POINTS: "0", ...keys },
      { autoDeployDelayMs: HELD_BACK_MS },
    );
    try {
      site = await fillDeployment(t);
      // A TOTP step later than the one /2fa/enable spent, for the operador's login.
      t.clock.advance(STEP_MS);
      const now = t.clock.now().getTime();
      const window = { from: new Date(now - 5 * 86_400_000).toISOString(), to: new Date(now).toISOString() };
      const { callers, logins } = await logIn(t, site);
      before = {
        answers: await apiAnswers(t, callers, site, window),
        logins,
        window,
        clockOffsetMs: Number(Atomics.load(t.clock.offsetMs, 0)),
        adminToken: callers[0]?.token ?? "",
      };
    } finally {
      // Stopped as an operator stops it (the database closed, its WAL gone), DATA_DIR kept.
      await t.server.stop();
    }
    dir = mkdtempSync(join(tmpdir(), "caudal-migrate-"));
    file = join(dir, "caudal.db");
    copyFileSync(join(t.dataDir, "caudal.db"), file);
    rmSync(t.dataDir, { recursive: true, force: true });
    pg = await startPostgres();
    admin = connectPool(pg.url);
  }, 120_000);
  afterAll(async () => {
    await admin?.end();
    await pg?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** A new, empty database on the test instance; its URL. */
  async function database(name: string): Promise<string> {
    await admin.query(`CREATE DATABASE migrated_${name}`);
    return pg.url.replace(/\/postgres$/, `/migrated_${name}`);
  }

  function options(to: string, extra: Partial<MigrateOptions> = {}): MigrateOptions & { lines: string[] } {
    const lines: string[] = [];
    return {
      from: file,
      to,
      restart: false,
      batchSize: 100,
      sampleSeries: 20,
      progressEveryMs: 0,
      write: (line) => lines.push(line),
      lines,
      ...extra,
    };
  }

  /** Every table's rows on `url`, one digest each: equal digests, equal contents. */
  async function contents(url: string): Promise<Record<string, string>> {
    const pool = connectPool(url);
    try {
      const out: Record<string, string> = {};
      for (const table of [...plans.map((p) => p.name), "audit_log_head"]) {
        const { rows } = await pool.query<{ digest: string }>(
          `SELECT md5(coalesce(string_agg(r::text, E'\\n' ORDER BY r::text), '')) AS digest FROM "${table}" r`,
        );
        out[table] = rows[0]?.digest ?? "";
      }
      return out;
    } finally {
      await pool.end();
    }
  }

  /** The source through its own store, read-only. */
  function sourceStore(): { store: SqliteStore; close(): void } {
    const sqlite = new Database(file, { readonly: true });
    return {
      store: new SqliteStore({ db: drizzle(sqlite, { schema: sqliteSchema }), sqlite }),
      close: () => sqlite.close(),
    };
  }

  /** Every table's rows read through a drizzle schema, each table sorted, keyed by table name. */
  const sorted = (rows: Record<string, unknown>[]) =>
    rows
      .map((row) => [JSON.stringify(row), row] as const)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, row]) => row);

  function rowsThroughSqlite(): Record<string, Record<string, unknown>[]> {
    const sqlite = new Database(file, { readonly: true });
    const db = drizzle(sqlite, { schema: sqliteSchema });
    try {
      return Object.fromEntries(
        Object.values(sqliteSchema)
          .filter((t) => is(t, SQLiteTable))
          .map((t) => [getTableName(t), sorted(db.select().from(t).all())]),
      );
    } finally {
      sqlite.close();
    }
  }

  async function rowsThroughPostgres(url: string): Promise<Record<string, Record<string, unknown>[]>> {
    const handle = await openPostgres(url);
    try {
      const out: Record<string, Record<string, unknown>[]> = {};
      for (const t of Object.values(pgSchema).filter((v) => is(v, PgTable))) {
        if (getTableName(t) === "audit_log_head") continue;
        // write_seq is PostgreSQL's own (the write order SQLite keeps as rowid), and so is
        // telemetry_series.rolled_to (the roll-up watermark SQLite keeps in memory; copied as null).
        const rows = (await handle.db.select().from(t)).map((row: Record<string, unknown>) => {
          const { writeSeq: _, rolledTo, ...rest } = row;
          if (rolledTo !== undefined) expect(rolledTo).toBeNull();
          return rest;
        });
        out[getTableName(t)] = sorted(rows);
      }
      return out;
    } finally {
      await handle.close();
    }
  }

  let full: string;

  postgres.it(
    "copies every table and verifies counts, the audit chain, report bytes and a telemetry sample",
    async () => {
      full = await database("full");
      const run = options(full);
      const result = await migrateSqliteToPostgres(run);
      expect(result.verification.problems).toEqual([]);
      expect(result.verification.ok).toBe(true);
      expect(result.resumed).toBe(false);

      const counts = Object.fromEntries(result.verification.counts.map((c) => [c.table, c]));
      for (const c of result.verification.counts) expect(c.target, c.table).toBe(c.source);
      for (const table of [
        "users",
        "recovery_codes",
        "projects",
        "assets",
        "devices",
        "variables",
        "alert_rules",
        "alarms",
        "alarm_events",
        "movements",
        "downtime",
        "meter_readings",
        "anh_reports",
        "invoices",
        "audit_log",
        "telemetry_series",
        "telemetry_raw",
        "telemetry_packed",
        "telemetry_rollup_5m",
        "telemetry_rollup_1h",
        "sessions",
      ]) {
        expect(counts[table]?.source, table).toBeGreaterThan(0);
      }
      expect(counts.telemetry_raw?.source).toBeGreaterThan(200);
      expect(result.verification.telemetry).toMatchObject({ series: 2, equal: true });
      expect(result.verification.telemetry.blocks).toBeGreaterThan(0);
      expect(result.verification.telemetry.rollupWindows).toBe(2);
      expect(result.verification.reports).toBe(1);

      // Progress went to the lines: rows, %, rows/s per batch; the checks at the end.
      expect(run.lines).toContainEqual(
        expect.stringMatching(/^telemetry_raw: [\d,]+ of [\d,]+ rows \(\d+\.\d%\), [\d,]+ rows\/s$/),
      );
      expect(run.lines).toContainEqual(
        expect.stringMatching(/^verify: audit chain of \d+ entries verifies on the target$/),
      );

      // Every row of every table reads back the same through the two drizzle schemas.
      expect(await rowsThroughPostgres(full)).toEqual(rowsThroughSqlite());

      // Through PostgreSQL's own ports: the chain verifies, the report's bytes and hash are the site's.
      const target = await PostgresStore.open(full);
      const lite = sourceStore();
      try {
        const chain = await verifyAuditChain({ store: target });
        expect(chain).toEqual(await verifyAuditChain({ store: lite.store }));
        expect(chain).toMatchObject({ valid: true, entries: counts.audit_log?.source });
        const report = await target.reports.report(site.reportId);
        const original = await lite.store.reports.report(site.reportId);
        expect(report?.content?.equals(original?.content ?? Buffer.alloc(0))).toBe(true);
        expect(report?.hashSha384).toBe(site.reportHash);
        expect(
          createHash("sha384")
            .update(report?.content ?? "")
            .digest("hex"),
        ).toBe(site.reportHash);
        const DAY = 86_400_000;
        const day = Math.floor(Date.now() / DAY) * DAY - 2 * DAY;
        expect(await target.telemetry.seriesRollups(site.projectId, day, day + DAY)).toEqual(
          await lite.store.telemetry.seriesRollups(site.projectId, day, day + DAY),
        );
        // The series identity continues past the copied ids.
        const pool = connectPool(full);
        const inserted = await pool.query<{ id: string }>(
          `INSERT INTO telemetry_series (project_id, asset_id, variable)
         SELECT project_id, asset_id, 'new' FROM telemetry_series LIMIT 1 RETURNING id`,
        );
        await pool.query("DELETE FROM telemetry_series WHERE variable = 'new'");
        await pool.end();
        const next = Number(inserted.rows[0]?.id);
        expect(next).toBe((counts.telemetry_series?.source ?? 0) + 1);
      } finally {
        lite.close();
        await target.close();
      }
    },
    120_000,
  );

  postgres.it(
    "serves the migrated site: every user logs in again and the API answers as it did on SQLite",
    async () => {
      // What SQLite answered is the site: the superadmin read every endpoint (the agent's health
      // is a 404: the site has no agent), the well's history has windows at every interval, and
      // the report file hashes to the report's hash.
      const asAdmin = Object.entries(before.answers).filter(([request]) => request.startsWith("superadmin "));
      expect(asAdmin.filter(([, a]) => a.status !== 200).map(([request]) => request)).toEqual([
        `superadmin GET /api/edge/agents/${site.projectId}/health`,
      ]);
      const histories = asAdmin.filter(
        ([request, a]) => request.includes("/history?interval=") && (a.body as unknown[]).length > 0,
      );
      expect(histories).toHaveLength(3);
      const file = before.answers[`superadmin GET /api/anh/reports/${site.reportId}/download`];
      expect(
        createHash("sha384")
          .update(Buffer.from(String(file?.body), "latin1"))
          .digest("hex"),
      ).toBe(site.reportHash);

      const url = await database("served");
      expect((await migrateSqliteToPostgres(options(url))).verification.ok).toBe(true);
      const served = await TestServer.start(
        { DATABASE_URL: url, ...keys },
        { autoDeployDelayMs: HELD_BACK_MS },
      );
      try {
        // The site's clock, one TOTP step on: the operador's next code must be of a later step
        // than its last login's on SQLite.
        served.clock.advance(before.clockOffsetMs + STEP_MS);
        // An access token the SQLite server issued still works: same key, its session copied.
        const stale = await served.request("/api/admin/users", { token: before.adminToken });
        expect(stale.status).toBe(200);

        const { callers, logins } = await logIn(served, site);
        expect(logins).toEqual(before.logins);
        const answers = await apiAnswers(served, callers, site, before.window);
        expect(Object.keys(answers)).toEqual(Object.keys(before.answers));
        for (const [request, answer] of Object.entries(answers)) {
          expect.soft(answer, request).toEqual(before.answers[request]);
        }
      } finally {
        await served.stop();
      }
    },
    120_000,
  );

  postgres.it(
    "refuses to run again into the migrated target, from the command line too",
    async () => {
      const started = (await startedAt(full)).toISOString();
      await expect(migrateSqliteToPostgres(options(full))).rejects.toThrow(
        new MigrationError(
          `the target already holds a verified migration of ${file} (started ${started}): pass --restart to empty it and migrate again`,
        ),
      );
      const cli = spawnSync(
        process.execPath,
        [
          "server/main.ts",
          "migrate",
          "--from",
          `sqlite:${file}`,
          "--to",
          full.replace("postgres@", "postgres:pw@"),
        ],
        { cwd: root, encoding: "utf8", timeout: 60_000 },
      );
      expect(cli.status, cli.stderr).toBe(1);
      expect(cli.stderr).toContain(`migrating sqlite:${file} to postgres://postgres:***@`);
      expect(cli.stderr).toContain("caudal-server migrate: the target already holds a verified migration");
      expect(cli.stderr).not.toContain(":pw@");
    },
    60_000,
  );

  async function startedAt(url: string): Promise<Date> {
    const pool = connectPool(url);
    try {
      return (
        (await pool.query<{ started_at: Date }>("SELECT started_at FROM caudal_migration")).rows[0]
          ?.started_at ?? new Date(0)
      );
    } finally {
      await pool.end();
    }
  }

  postgres.it(
    "refuses a target holding data, and --restart empties it and migrates",
    async () => {
      const busy = await database("busy");
      const store = await PostgresStore.open(busy);
      await store.audit.append({
        at: new Date(),
        userId: null,
        projectId: null,
        entity: "elsewhere",
        entityId: "1",
        action: "create",
        before: null,
        after: { x: 1 },
      });
      await store.close();
      await expect(migrateSqliteToPostgres(options(busy))).rejects.toThrow(
        "the target already holds data (audit_log, audit_log_head): migrate into an empty database, or pass --restart to empty this one first",
      );
      const result = await migrateSqliteToPostgres(options(busy, { restart: true }));
      expect(result.verification.ok).toBe(true);
      expect(await contents(busy)).toEqual(await contents(full));
    },
    120_000,
  );

  postgres.it(
    "resumes an interrupted run after its last committed batch, to the same end state",
    async () => {
      const url = await database("resumed");
      const stopAt = async (table: string, batches: number) => {
        const stop = new AbortController();
        let seen = 0;
        const run = options(url, {
          batchSize: 10,
          signal: stop.signal,
          onBatch: (name) => {
            if (name === table && ++seen === batches) stop.abort();
          },
        });
        await expect(migrateSqliteToPostgres(run)).rejects.toThrow(MigrationInterrupted);
        return run.lines;
      };
      // Stopped inside the audit log (read by rowid), then inside telemetry_raw (by its key).
      await stopAt("audit_log", 1);
      const second = await stopAt("telemetry_raw", 2);
      expect(second).toContainEqual(expect.stringMatching(/^audit_log: resuming after 10 of [\d,]+ rows$/));
      const pool = connectPool(url);
      const progress = await pool.query<{ table_name: string; rows: string; done: boolean }>(
        "SELECT table_name, rows, done FROM caudal_migration_progress WHERE table_name = 'telemetry_raw'",
      );
      await pool.end();
      expect(progress.rows).toEqual([{ table_name: "telemetry_raw", rows: "20", done: false }]);

      const run = options(url);
      const result = await migrateSqliteToPostgres(run);
      expect(result.resumed).toBe(true);
      expect(result.verification.ok).toBe(true);
      expect(run.lines).toContainEqual(
        "telemetry_raw: resuming after 20 of " +
          `${result.verification.counts.find((c) => c.table === "telemetry_raw")?.source.toLocaleString("en-US")} rows`,
      );
      expect(await contents(url)).toEqual(await contents(full));
    },
    120_000,
  );

  postgres.it(
    "resumes only from the same, unchanged source",
    async () => {
      const copy = join(dir, "changed.db");
      copyFileSync(file, copy);
      const url = await database("changed");
      const stop = new AbortController();
      const interrupted = options(url, {
        from: copy,
        batchSize: 10,
        signal: stop.signal,
        onBatch: () => stop.abort(),
      });
      await expect(migrateSqliteToPostgres(interrupted)).rejects.toThrow(MigrationInterrupted);
      await expect(migrateSqliteToPostgres(options(url))).rejects.toThrow(
        `the target holds an unfinished migration of ${copy}`,
      );
      const writer = new Database(copy);
      writer.pragma("user_version = 9");
      writer.close();
      await expect(migrateSqliteToPostgres(options(url, { from: copy }))).rejects.toThrow(
        `${copy} changed since the unfinished migration started`,
      );
      expect(
        (await migrateSqliteToPostgres(options(url, { from: copy, restart: true }))).verification.ok,
      ).toBe(true);
    },
    120_000,
  );

  postgres.it(
    "finds a copy that differs: a changed report, a missing reading",
    async () => {
      const url = await database("tampered");
      expect((await migrateSqliteToPostgres(options(url))).verification.ok).toBe(true);
      const pool = connectPool(url);
      await pool.query("UPDATE anh_reports SET content = content || '\\x20'::bytea");
      await pool.query(
        "DELETE FROM telemetry_raw WHERE (series_id, ts) = (SELECT series_id, ts FROM telemetry_raw ORDER BY ts DESC, series_id LIMIT 1)",
      );
      await pool.end();
      const source = SqliteSource.open(file);
      const lite = sourceStore();
      const target = await PostgresTarget.open(url);
      try {
        const check = await verifyMigration(plans, source, lite.store, target, 20, () => {});
        expect(check.ok).toBe(false);
        expect(check.problems).toEqual([
          expect.stringMatching(/^telemetry_raw: \d+ rows on SQLite, \d+ on PostgreSQL$/),
          `report ${site.reportId}: bytes or hash differ on the target`,
          expect.stringMatching(/^telemetry: raw readings of series \d+: not the same on the target$/),
        ]);
      } finally {
        await target.close();
        lite.close();
        source.close();
      }
    },
    120_000,
  );

  postgres.it("refuses a source that a server still writes (its WAL holds frames)", async () => {
    const live = join(dir, "live.db");
    copyFileSync(file, live);
    const writer = new Database(live);
    try {
      writer.pragma("journal_mode = WAL");
      writer.pragma("user_version = 7");
      await expect(
        migrateSqliteToPostgres(options("postgres://nowhere.invalid/x", { from: live })),
      ).rejects.toThrow(`${live}-wal holds writes not yet in the database: a server has it open.`);
    } finally {
      writer.close();
    }
  });
});
