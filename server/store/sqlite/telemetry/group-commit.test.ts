import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TelemetryBatch } from "../../../../shared/telemetry/batch.ts";
import { AppError } from "../../../errors.ts";
import { TestServer } from "../../../testing/harness.ts";
import { sqliteConnection } from "../../../testing/sqlite-connection.ts";
import type { Sqlite } from "../client.ts";
import { YoungBlocks } from "./compact-blocks.ts";
import { type CommitTotals, GroupCommit } from "./group-commit.ts";
import { TelemetryInbox } from "./inbox.ts";
import { TelemetryLookups } from "./lookups.ts";
import { RollupTracker } from "./rollup-tracker.ts";
import { WriteStatements } from "./statements.ts";

/*
 * A group commit of its own on the test server's connection, with lookups that have no triggers,
 * so that rows can change behind its back.
 */
describe("telemetry group commit", () => {
  let t: TestServer;
  let projectId: string;
  let writer: Sqlite;
  let commits: GroupCommit;
  let inbox: TelemetryInbox;
  const period = "2030-01";
  beforeAll(async () => {
    t = await TestServer.start();
    projectId = await t.project();
    writer = sqliteConnection(t.server);
    const lookups = new TelemetryLookups(writer);
    lookups.install({ triggers: false });
    const totals: CommitTotals = { stored: 0, duplicates: 0, commits: 0, commitSeconds: 0 };
    const statements = new WriteStatements(writer);
    const young = new YoungBlocks();
    inbox = new TelemetryInbox(writer, statements, young, 64);
    commits = new GroupCommit(
      {
        sqlite: writer,
        statements,
        lookups,
        tracker: new RollupTracker(writer, inbox.settle),
        inbox,
        young,
        totals,
        warn: () => {},
        transaction: (work) => t.server.context.store.transaction(work),
        beforeWrite: () => lookups.clearIfChangedElsewhere(),
      },
      { windowMs: 5, maxQueuedReadings: 20_000, blockPoints: 64 },
    );
  });
  afterAll(async () => t.stop());

  /** One point of variable v; a request's points of one asset are one series. */
  const batch = (assetId: string, ...points: [number, number][]): TelemetryBatch => ({
    source: "http",
    series: [{ projectId, assetId, variable: "v", points }],
  });
  const server = () => sqliteConnection(t.server);
  const raw = (assetId: string) => {
    inbox.settle();
    return server()
      .prepare(
        "SELECT r.ts, r.value FROM telemetry_raw r JOIN telemetry_series s ON s.id = r.series_id WHERE s.asset_id = ? ORDER BY r.ts",
      )
      .all(assetId);
  };

  it("commits the requests queued together in one transaction and answers each", async () => {
    const [a, b] = [await t.asset(projectId), await t.asset(projectId)];
    const now = t.clock.now().getTime() - 60_000;
    const requests = [batch(a, [now, 1]), batch(b, [now, 2]), batch(a, [now + 1, 3])];
    const jobs = await Promise.all(requests.map((request) => commits.submit(request, period)));
    expect(jobs.map((j) => j.result)).toEqual([
      { accepted: 1, duplicates: 0 },
      { accepted: 1, duplicates: 0 },
      { accepted: 1, duplicates: 0 },
    ]);
    expect(new Set(jobs.map((j) => j.commit)).size).toBe(1);
    const [, second] = jobs;
    if (!second) throw new Error("no second job");
    expect(second.committed).toEqual({
      source: "http",
      series: [{ projectId, assetId: b, variable: "v", points: [[now, 2]] }],
    });
    const usage = server()
      .prepare("SELECT telemetry_points FROM usage_counters WHERE project_id = ? AND period = ?")
      .pluck()
      .get(projectId, period);
    expect(usage).toBe(3);
  });

  it("isolates a request that fails in the shared commit: the others are stored, it alone fails", async () => {
    const [a, gone] = [await t.asset(projectId), await t.asset(projectId)];
    const now = t.clock.now().getTime() - 60_000;
    const ok = commits.submit(batch(a, [now, 1]), period);
    const doomed = commits.submit(batch(gone, [now, 2]), period);
    const alsoOk = commits.submit(batch(a, [now + 1, 3]), period);
    // The asset goes between validation and commit (the queue waits for the commit window).
    server().prepare("DELETE FROM assets WHERE id = ?").run(gone);
    await expect(ok).resolves.toMatchObject({ result: { accepted: 1, duplicates: 0 } });
    await expect(alsoOk).resolves.toMatchObject({ result: { accepted: 1, duplicates: 0 } });
    const failure = await doomed.then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(failure).toBeInstanceOf(AppError);
    expect((failure as AppError).code).toBe("NotFound");
    expect(raw(a)).toEqual([
      { ts: now, value: 1 },
      { ts: now + 1, value: 3 },
    ]);
    expect(raw(gone)).toEqual([]);
  });

  it("a row stored behind its back (stale lookups) is kept once, and later moves go on", async () => {
    const a = await t.asset(projectId);
    const now = t.clock.now().getTime() - 60_000;
    await commits.submit(batch(a, [now, 1]), period);
    const seriesId = server().prepare("SELECT id FROM telemetry_series WHERE asset_id = ?").pluck().get(a);
    // Another writer stores a newer reading without moving last_ts.
    server()
      .prepare("INSERT INTO telemetry_raw (series_id, ts, value) VALUES (?, ?, ?)")
      .run(seriesId, now + 10, 7);
    // Newer than last_ts, so the inbox takes both without a check (inbox.ts); its move keeps the
    // row already stored. The commit cannot know, so it counts both.
    const job = await commits.submit(batch(a, [now + 10, 8], [now + 20, 9]), period);
    expect(job.result).toEqual({ accepted: 2, duplicates: 0 });
    expect(raw(a)).toEqual([
      { ts: now, value: 1 },
      { ts: now + 10, value: 7 },
      { ts: now + 20, value: 9 },
    ]);
  });
  it("joins one agent's consecutive batches into blocks; a gap in its numbers keeps each batch apart", async () => {
    const [a, b] = [await t.asset(projectId), await t.asset(projectId)];
    const now = t.clock.now().getTime() - 3_600_000;
    const agentBatch = (assetId: string, seq: number, ts: number): TelemetryBatch => ({
      ...batch(assetId, [ts, seq]),
      source: "agent",
      sequence: { stream: `${projectId}/${assetId}`, seq },
    });
    // 64 batches of one reading each (blockPoints is 64), queued in one commit, out of order.
    const seqs = Array.from({ length: 64 }, (_, k) => k + 1).reverse();
    const packedOf = (assetId: string) =>
      server()
        .prepare(
          "SELECT count(*) || '/' || coalesce(sum(count), 0) FROM telemetry_packed p JOIN telemetry_series s ON s.id = p.series_id WHERE s.asset_id = ?",
        )
        .pluck()
        .get(assetId);
    const inboxOf = (assetId: string) =>
      server()
        .prepare(
          "SELECT count(*) FROM telemetry_inbox i JOIN telemetry_series s ON s.id = i.series_id WHERE s.asset_id = ?",
        )
        .pluck()
        .get(assetId);
    const joined = await Promise.all(
      seqs.map((seq) => commits.submit(agentBatch(a, seq, now + seq * 1000), period)),
    );
    expect(new Set(joined.map((j) => j.commit)).size).toBe(1);
    // One block of all 64 readings.
    expect(packedOf(a)).toBe("1/64");
    expect(inboxOf(a)).toBe(0);
    // Every other number: a batch between two of them may still be on its way, so no block.
    await Promise.all(seqs.map((seq) => commits.submit(agentBatch(b, 2 * seq, now + seq * 1000), period)));
    expect(packedOf(b)).toBe("0/0");
    // (Checked before the inbox's next move, which may make them a block of their own.)
    expect(inboxOf(b)).toBe(64);
  });
});

describe("telemetry service lifecycle", () => {
  it("stop() commits what is queued before the database closes; later writes get 503", async () => {
    const s = await TestServer.start();
    const p = await s.project();
    const asset = await s.asset(p);
    const pending = s.server.telemetry.write({
      source: "http",
      series: [{ projectId: p, assetId: asset, variable: "v", points: [[s.clock.now().getTime(), 1]] }],
    });
    const db = sqliteConnection(s.server);
    const stopped = s.server.telemetry.stop();
    await expect(pending).resolves.toEqual({ accepted: 1, duplicates: 0 });
    await stopped;
    expect(db.prepare("SELECT count(*) FROM telemetry_raw").pluck().get()).toBe(1);
    expect(db.prepare("SELECT count(*) FROM telemetry_rollup_5m").pluck().get()).toBe(1);
    await expect(s.server.telemetry.write({ source: "http", series: [] })).rejects.toMatchObject({
      code: "Unavailable",
    });
    await s.stop();
  });
});
