import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Payload } from "../../../shared/mqtt/topics.ts";
import { instantsOfBatch } from "../../../shared/telemetry/batch.ts";
import { TestServer } from "../../testing/harness.ts";
import { tableProbe } from "../../testing/table-probe.ts";
import type { TelemetryEvent } from "../events.ts";
import { BATCH_RECORD_HOURS } from "./batch-records.ts";
import { receiveAgentBatch } from "./receive-batch.ts";

type Batch = Payload<"telemetry">;

/** An error's message and its causes' (a query builder wraps the driver's error), one per line. */
function errorChain(error: unknown): string {
  const lines: string[] = [];
  for (let e = error; e instanceof Error; e = e.cause) lines.push(e.message);
  return lines.join("\n");
}

describe("receiveAgentBatch: an agent's batch through the ingest service", () => {
  let t: TestServer;
  let projectId: string;
  let wellA: string;
  let wellB: string;
  let elsewhere: string;
  beforeAll(async () => {
    t = await TestServer.start();
    projectId = await t.project();
    wellA = await t.asset(projectId);
    wellB = await t.asset(projectId);
    elsewhere = await t.asset(await t.project());
  });
  afterAll(async () => t.stop());

  const count = async (sql: string, ...params: unknown[]) =>
    (await tableProbe(t.server).query<{ n: number }>(sql, params))[0]?.n;
  const rawRows = (assetId: string) =>
    count(
      `SELECT count(*) AS n FROM (SELECT series_id FROM telemetry_raw UNION ALL SELECT series_id FROM telemetry_inbox) r
       JOIN telemetry_series s ON s.id = r.series_id WHERE s.asset_id = ?`,
      assetId,
    );

  const batchOf = (seq: number, series: Batch["series"], agentId = randomUUID()): Batch => ({
    agent_id: agentId,
    seq,
    lane: "backlog",
    series,
    alarms: [],
  });

  /** One batch of `agentId` with `points` of variable "flow" of `assetId`. */
  const flowBatch = (
    seq: number,
    assetId: string,
    agentId: ReturnType<typeof randomUUID>,
    ...points: [number, number][]
  ) => batchOf(seq, [{ asset_id: assetId, variable: "flow", points }], agentId);

  it("stores the batch's series as one event; per asset and instant, every variable of that instant", async () => {
    const ts = t.clock.now().getTime() - 60_000;
    const events: TelemetryEvent[] = [];
    const listen = (e: TelemetryEvent) => events.push(e);
    t.server.context.events.on("telemetry", listen);
    try {
      const ack = await receiveAgentBatch(
        t.server.context,
        t.server.telemetry,
        projectId,
        batchOf(1, [
          {
            asset_id: wellA,
            variable: "pressure",
            unit: "psi",
            points: [
              [ts, 1450],
              [ts + 1000, 1451],
            ],
          },
          { asset_id: wellA, variable: "temperature", points: [[ts, 182]] },
          { asset_id: wellB, variable: "pressure", unit: "psi", points: [[ts, 900]] },
        ]),
      );
      expect(ack).toMatchObject({ seq: 1, accepted: 4, duplicate: false });
      expect(ack.error).toBeUndefined();
    } finally {
      t.server.context.events.off("telemetry", listen);
    }
    expect(events).toHaveLength(1);
    const byAsset = (assetId: string) =>
      events
        .flatMap((e) => instantsOfBatch(e))
        .filter((i) => i.assetId === assetId)
        .map((i) => ({ ts: i.ts, variables: i.readings.map((r) => r.variable).sort() }));
    expect(byAsset(wellA)).toEqual([
      { ts, variables: ["pressure", "temperature"] },
      { ts: ts + 1000, variables: ["pressure"] },
    ]);
    expect(byAsset(wellB)).toEqual([{ ts, variables: ["pressure"] }]);
    // The agent evaluated its rules at the edge: the server's engine must not evaluate them again.
    expect(events.every((e) => e.source === "agent")).toBe(true);

    const { token } = await t.admin();
    const latest = await t.request<{ timestamp: string; readings: { variable: string; value: number }[] }[]>(
      `/api/telemetry/${wellA}?limit=2`,
      { token },
    );
    expect(latest.body.map((p) => [Date.parse(p.timestamp), p.readings.length])).toEqual([
      [ts + 1000, 1],
      [ts, 2],
    ]);
  });

  it("acknowledges a seq already committed as a duplicate and stores nothing again", async () => {
    const agentId = randomUUID();
    const ts = t.clock.now().getTime() - 30_000;
    const batch = flowBatch(7, wellB, agentId, [ts, 10], [ts + 1, 11]);
    const first = await receiveAgentBatch(t.server.context, t.server.telemetry, projectId, batch);
    const stored = await rawRows(wellB);
    const again = await receiveAgentBatch(t.server.context, t.server.telemetry, projectId, batch);
    expect(first).toMatchObject({ accepted: 2, duplicate: false });
    expect(again).toEqual({ agent_id: agentId, seq: 7, accepted: 0, duplicate: true });
    expect(await rawRows(wellB)).toBe(stored);
    // The same seq from another agent is another batch.
    const other = await receiveAgentBatch(t.server.context, t.server.telemetry, projectId, {
      ...batch,
      agent_id: randomUUID(),
    });
    expect(other).toMatchObject({ duplicate: false, accepted: 0 });
  });

  it("stores a batch sent twice into one commit once, and answers the second as a duplicate", async () => {
    const agentId = randomUUID();
    const ts = t.clock.now().getTime() - 40_000;
    const batch = flowBatch(3, wellB, agentId, [ts, 20], [ts + 1, 21], [ts + 2, 22]);
    const before = await rawRows(wellB);
    // Neither awaited before the other: both wait for the same group commit.
    const answers = await Promise.all([
      receiveAgentBatch(t.server.context, t.server.telemetry, projectId, batch),
      receiveAgentBatch(t.server.context, t.server.telemetry, projectId, batch),
    ]);
    expect(answers).toEqual([
      { agent_id: agentId, seq: 3, accepted: 3, duplicate: false },
      { agent_id: agentId, seq: 3, accepted: 0, duplicate: true },
    ]);
    expect(await rawRows(wellB)).toBe((before ?? 0) + 3);
  });

  it("commits a batch whole or not at all: points, alarms and the dedupe record together", async () => {
    const well = await t.asset(projectId);
    const agentId = randomUUID();
    const ts = t.clock.now().getTime() - 10_000;
    const alarmId = randomUUID();
    const batch: Batch = {
      ...batchOf(
        3,
        [
          {
            asset_id: well,
            variable: "casing",
            unit: "psi",
            points: [
              [ts, 812],
              [ts + 1000, 815],
            ],
          },
        ],
        agentId,
      ),
      lane: "live",
      alarms: [
        {
          id: alarmId,
          event: "raised",
          rule_id: randomUUID(),
          asset_id: well,
          variable: "casing",
          value: 812,
          alarm_type: "high",
          severity: "warning",
          message: "casing above 800 psi",
          at: ts,
        },
      ],
    };
    const batches = () => count("SELECT count(*) AS n FROM agent_batches WHERE agent_id = ?", agentId);
    const alarmRows = () => count("SELECT count(*) AS n FROM alarms WHERE id = ?", alarmId);
    const usage = async () =>
      (await count(
        "SELECT coalesce(sum(telemetry_points), 0) AS n FROM usage_counters WHERE project_id = ?",
        projectId,
      )) ?? 0;
    const usageBefore = await usage();
    // The alarm insert fails inside the batch's transaction (a real database error, raised by a trigger).
    const failure = await tableProbe(t.server).withFailingInserts("alarms", "alarm store failed", () =>
      receiveAgentBatch(t.server.context, t.server.telemetry, projectId, batch).then(
        () => "committed",
        errorChain,
      ),
    );
    expect(failure).toContain("alarm store failed");
    expect(await rawRows(well)).toBe(0);
    expect(await batches()).toBe(0);
    expect(await alarmRows()).toBe(0);
    expect(await usage()).toBe(usageBefore);

    // The agent got no ack and sends the batch again: stored once, with its alarm and its record.
    const ack = await receiveAgentBatch(t.server.context, t.server.telemetry, projectId, batch);
    expect(ack).toEqual({ agent_id: agentId, seq: 3, accepted: 2, duplicate: false });
    expect([await rawRows(well), await batches(), await alarmRows(), await usage()]).toEqual([
      2,
      1,
      1,
      usageBefore + 2,
    ]);
    const again = await receiveAgentBatch(t.server.context, t.server.telemetry, projectId, batch);
    expect(again).toEqual({ agent_id: agentId, seq: 3, accepted: 0, duplicate: true });
    expect([await rawRows(well), await batches(), await alarmRows(), await usage()]).toEqual([
      2,
      1,
      1,
      usageBefore + 2,
    ]);
  });

  it("takes the points back when the batch's record cannot be written", async () => {
    // On SQLite the record is written last, just before COMMIT (store/sqlite/batch-ledger.ts).
    const well = await t.asset(projectId);
    const agentId = randomUUID();
    const ts = t.clock.now().getTime() - 10_000;
    const batch = flowBatch(1, well, agentId, [ts, 1], [ts + 1, 2]);
    const records = () => count("SELECT count(*) AS n FROM agent_batches WHERE agent_id = ?", agentId);
    const failure = await tableProbe(t.server).withFailingInserts(
      "agent_batches",
      "record store failed",
      () =>
        receiveAgentBatch(t.server.context, t.server.telemetry, projectId, batch).then(
          () => "committed",
          errorChain,
        ),
    );
    expect(failure).toContain("record store failed");
    expect([await rawRows(well), await records()]).toEqual([0, 0]);
    const ack = await receiveAgentBatch(t.server.context, t.server.telemetry, projectId, batch);
    expect(ack).toEqual({ agent_id: agentId, seq: 1, accepted: 2, duplicate: false });
    expect([await rawRows(well), await records()]).toEqual([2, 1]);
  });

  it("knows the batches of a run another server recorded (a site's records copied by migrate)", async () => {
    const well = await t.asset(projectId);
    const agentId = randomUUID();
    const ts = t.clock.now().getTime() - 10_000;
    await tableProbe(t.server).run(
      "INSERT INTO agent_batches (project_id, agent_id, seq, last_seq, points, received_at) VALUES (?, ?, 3, 5, 30, ?)",
      [projectId, agentId, t.clock.now().getTime()],
    );
    const receive = (seq: number) =>
      receiveAgentBatch(
        t.server.context,
        t.server.telemetry,
        projectId,
        flowBatch(seq, well, agentId, [ts + seq, seq]),
      );
    expect(await receive(4)).toMatchObject({ accepted: 0, duplicate: true });
    expect(await receive(2)).toMatchObject({ accepted: 1, duplicate: false });
    expect(await receive(6)).toMatchObject({ accepted: 1, duplicate: false });
    expect(await receive(5)).toMatchObject({ accepted: 0, duplicate: true });
    expect(await rawRows(well)).toBe(2);
  });

  it("discards points of assets outside the project, says so in the ack, and stores the rest", async () => {
    const ts = t.clock.now().getTime() - 20_000;
    const unknown = randomUUID();
    const ack = await receiveAgentBatch(
      t.server.context,
      t.server.telemetry,
      projectId,
      batchOf(1, [
        { asset_id: elsewhere, variable: "pressure", points: [[ts, 1]] },
        { asset_id: wellA, variable: "level", points: [[ts, 5]] },
        { asset_id: unknown, variable: "pressure", points: [[ts, 2]] },
        { asset_id: elsewhere, variable: "temperature", points: [[ts, 3]] },
      ]),
    );
    expect(ack.accepted).toBe(1);
    expect(ack.error).toContain("2 asset(s)");
    expect(ack.error).toContain(elsewhere);
    expect(ack.error).toContain(unknown);
    expect(await rawRows(elsewhere)).toBe(0);
  });

  it("forgets a batch's record after a day; sent again then, it is stored once and acknowledged", async () => {
    const agentId = randomUUID();
    const well = await t.asset(projectId);
    const ts = t.clock.now().getTime() - 30_000;
    const batch = flowBatch(3, well, agentId, [ts, 1], [ts + 1, 2]);
    const receive = () => receiveAgentBatch(t.server.context, t.server.telemetry, projectId, batch);
    expect(await receive()).toMatchObject({ accepted: 2, duplicate: false });
    // A day less a minute on, the record is kept: still a duplicate.
    t.clock.advance(BATCH_RECORD_HOURS * 3_600_000 - 60_000);
    const records = () => count("SELECT count(*) AS n FROM agent_batches WHERE agent_id = ?", agentId);
    await t.server.scheduler.tick();
    expect(await records()).toBe(1);
    expect(await receive()).toMatchObject({ accepted: 0, duplicate: true });
    t.clock.advance(120_000);
    const pruned = (await t.server.scheduler.tick()).agent_batch_records as { deleted: number };
    expect(pruned.deleted).toBeGreaterThanOrEqual(1);
    expect(await records()).toBe(0);
    // Sent again: a new record, and each reading still stored once.
    expect(await receive()).toEqual({ agent_id: agentId, seq: 3, accepted: 0, duplicate: false });
    expect(await rawRows(well)).toBe(2);
    expect(await records()).toBe(1);
  });

  it("counts points toward the UTC month they were received in, across a month's end", async () => {
    const usageProject = await t.project();
    const well = await t.asset(usageProject);
    const agentId = randomUUID();
    const now = t.clock.now();
    const nextMonth = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
    const receive = async (seq: number) => {
      const ts = t.clock.now().getTime();
      await receiveAgentBatch(
        t.server.context,
        t.server.telemetry,
        usageProject,
        flowBatch(seq, well, agentId, [ts, seq]),
      );
    };
    // The test clock follows real time: a second either side, so that a slow store (PostgreSQL's
    // first lookup of an asset takes milliseconds) cannot carry the first batch over the end.
    const moved = nextMonth - 1_000 - now.getTime();
    t.clock.advance(moved);
    try {
      await receive(1);
      t.clock.advance(2_000);
      await receive(2);
      await receive(3);
    } finally {
      t.clock.advance(-moved - 2_000);
    }
    const periods = await tableProbe(t.server).query<{ period: string; n: number }>(
      "SELECT period, telemetry_points AS n FROM usage_counters WHERE project_id = ? ORDER BY period",
      [usageProject],
    );
    const month = (ms: number) => new Date(ms).toISOString().slice(0, 7);
    expect(periods).toEqual([
      { period: month(nextMonth - 1), n: 1 },
      { period: month(nextMonth), n: 2 },
    ]);
  });
});
