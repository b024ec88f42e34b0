import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { drizzle } from "drizzle-orm/better-sqlite3";
import { migrate } from "drizzle-orm/better-sqlite3/migrator";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type DatabaseHandle, openDatabase } from "./client.ts";
import { SqliteStore } from "./sqlite-store.ts";
import { migrationsBefore } from "./testing/migrations-before.ts";

const at = (ms: number) => new Date(1_750_000_000_000 + ms);
type Run = { seq: number; last_seq: number; points: number; received_at: number };

/*
 * The agent batch records on SQLite (batch-ledger.ts): runs of consecutive seqs, one row an agent
 * per commit or fewer, answered from memory where memory is sure. Each case below fails when the
 * part it names is taken out. On a real database file, through the port and the store's
 * transaction, as the telemetry group commit claims batches.
 */
describe("agent batch records on SQLite (runs)", () => {
  let dir: string;
  let path: string;
  let handle: DatabaseHandle;
  let store: SqliteStore;
  let projectId: string;
  const agentId = randomUUID();

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), "caudal-batch-ledger-"));
    path = join(dir, "caudal.db");
    handle = openDatabase(path);
    store = new SqliteStore(handle);
    projectId = randomUUID();
    await store.field.insertProject({
      id: projectId,
      name: "p",
      slug: "p",
      createdAt: at(0),
      updatedAt: at(0),
    });
  });
  afterEach(() => {
    handle.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Claims each seq (10 points, received at `ms`) in one transaction; the claims' answers. */
  const commit = (seqs: number[], ms = 0, s = store) =>
    s.transaction(async (tx) => {
      const answers: boolean[] = [];
      for (const seq of seqs) answers.push(await tx.agents.recordBatch(projectId, agentId, seq, 10, at(ms)));
      return answers;
    });
  const runs = () =>
    handle.sqlite
      .prepare<[string], Run>(
        "SELECT seq, last_seq, points, received_at FROM agent_batches WHERE agent_id = ? ORDER BY seq",
      )
      .all(agentId)
      .map((r) => ({ ...r, received_at: r.received_at - at(0).getTime() }));

  it("writes a commit's consecutive batches as one run, and the next commit extends it", async () => {
    expect(await commit([1, 2, 3], 100)).toEqual([true, true, true]);
    expect(runs()).toEqual([{ seq: 1, last_seq: 3, points: 30, received_at: 100 }]);
    expect(await commit([4, 5], 200)).toEqual([true, true]);
    expect(runs()).toEqual([{ seq: 1, last_seq: 5, points: 50, received_at: 200 }]);
  });

  it("answers a batch committed before, or claimed earlier in the same commit, as a duplicate", async () => {
    await commit([1, 2, 3]);
    expect(await commit([2, 4, 4, 3])).toEqual([false, true, false, false]);
    expect(runs()).toEqual([{ seq: 1, last_seq: 4, points: 40, received_at: 0 }]);
  });

  it("takes backlog seqs below the newest, in runs of their own, and knows each after", async () => {
    await commit([100, 101]);
    // Live 100–101 first, then the backlog from 90 (a gap at 95), one batch at a time.
    expect(await commit([90, 91, 93])).toEqual([true, true, true]);
    expect(await commit([92, 94, 102])).toEqual([true, true, true]);
    // Each run extends the row that ends right before it; rows are not merged with each other.
    expect(runs()).toEqual([
      { seq: 90, last_seq: 92, points: 30, received_at: 0 },
      { seq: 93, last_seq: 94, points: 20, received_at: 0 },
      { seq: 100, last_seq: 102, points: 30, received_at: 0 },
    ]);
    expect(await commit([90, 92, 94, 95, 99, 101, 102, 103])).toEqual([
      false,
      false,
      false,
      true,
      true,
      false,
      false,
      true,
    ]);
  });

  it("forgets the claims of a transaction that rolled back", async () => {
    await commit([1]);
    const failed = store.transaction(async (tx) => {
      expect(await tx.agents.recordBatch(projectId, agentId, 2, 10, at(0))).toBe(true);
      throw new Error("the points failed");
    });
    await expect(failed).rejects.toThrow("the points failed");
    expect(runs()).toEqual([{ seq: 1, last_seq: 1, points: 10, received_at: 0 }]);
    // Sent again, it is new: the memory of the rolled-back claim did not survive either.
    expect(await commit([2, 3])).toEqual([true, true]);
    expect(runs()).toEqual([{ seq: 1, last_seq: 3, points: 30, received_at: 0 }]);
  });

  it("knows the database's runs after a restart", async () => {
    await commit([1, 2, 3]);
    await commit([10]);
    const restarted = new SqliteStore(handle);
    expect(await commit([3, 4, 10, 11], 0, restarted)).toEqual([false, true, false, true]);
    // Both runs extended: the newest, known from the start, and 1–3, found when 4 was looked up.
    expect(runs()).toEqual([
      { seq: 1, last_seq: 4, points: 40, received_at: 0 },
      { seq: 10, last_seq: 11, points: 20, received_at: 0 },
    ]);
  });

  it("notices batches another connection committed", async () => {
    await commit([1, 2]);
    // Another process (a second server on the file, an operator's tool) records 3–5.
    const other = openDatabase(path);
    try {
      other.sqlite
        .prepare(
          "INSERT INTO agent_batches (project_id, agent_id, seq, last_seq, points, received_at) VALUES (?, ?, 3, 5, 30, 0)",
        )
        .run(projectId, agentId);
    } finally {
      other.close();
    }
    expect(await commit([4, 6])).toEqual([false, true]);
  });

  it("records a batch claimed outside any transaction at once", async () => {
    expect(await store.agents.recordBatch(projectId, agentId, 7, 10, at(5))).toBe(true);
    expect(runs()).toEqual([{ seq: 7, last_seq: 7, points: 10, received_at: 5 }]);
    expect(await store.agents.recordBatch(projectId, agentId, 7, 10, at(5))).toBe(false);
  });

  it("starts a new run when the one it would extend was pruned, and prunes by the run's last batch", async () => {
    await commit([1, 2], 0);
    await commit([3], 10_000);
    // The run 1–3 was last extended at 10 s: older records go, it stays.
    await commit([20], 1_000);
    expect(await store.agents.deleteBatchRecordsBefore(at(5_000), 100)).toBe(1);
    expect(runs().map((r) => [r.seq, r.last_seq])).toEqual([[1, 3]]);
    expect(await store.agents.deleteBatchRecordsBefore(at(20_000), 100)).toBe(1);
    expect(await commit([4, 21], 30_000)).toEqual([true, true]);
    expect(runs()).toEqual([
      { seq: 4, last_seq: 4, points: 10, received_at: 30_000 },
      { seq: 21, last_seq: 21, points: 10, received_at: 30_000 },
    ]);
  });

  it("keeps the agents of a project apart, and projects apart", async () => {
    const otherAgent = randomUUID();
    await commit([1]);
    await store.transaction(async (tx) => {
      expect(await tx.agents.recordBatch(projectId, otherAgent, 1, 10, at(0))).toBe(true);
    });
    const otherProject = randomUUID();
    await store.field.insertProject({
      id: otherProject,
      name: "q",
      slug: "q",
      createdAt: at(0),
      updatedAt: at(0),
    });
    expect(await store.agents.recordBatch(otherProject, agentId, 1, 10, at(0))).toBe(true);
    expect(await store.agents.recordBatch(otherProject, agentId, 1, 10, at(0))).toBe(false);
  });

  it("reads the records an older server left, one a batch, as runs of one (migration 0012)", async () => {
    const old = join(dir, "old.db");
    const before = new Database(old);
    migrate(drizzle(before), { migrationsFolder: migrationsBefore(dir, "agent_batch_runs") });
    before
      .prepare("INSERT INTO projects (id, name, created_at, updated_at) VALUES (?, 'p', 1, 1)")
      .run(projectId);
    const insert = before.prepare(
      "INSERT INTO agent_batches (project_id, agent_id, seq, points, received_at) VALUES (?, ?, ?, 10, 0)",
    );
    for (const seq of [1, 2, 3, 7]) insert.run(projectId, agentId, seq);
    before.close();

    handle.close();
    handle = openDatabase(old);
    store = new SqliteStore(handle);
    expect(runs().map((r) => [r.seq, r.last_seq])).toEqual([
      [1, 1],
      [2, 2],
      [3, 3],
      [7, 7],
    ]);
    expect(await commit([2, 4, 7, 8])).toEqual([false, true, false, true]);
    expect(runs().map((r) => [r.seq, r.last_seq])).toEqual([
      [1, 1],
      [2, 2],
      [3, 4],
      [7, 8],
    ]);
  });
});
