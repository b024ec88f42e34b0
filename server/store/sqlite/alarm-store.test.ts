import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { RaisedAlarm } from "../ports/alarm-store.ts";
import { type DatabaseHandle, openDatabase } from "./client.ts";
import { SqliteStore } from "./sqlite-store.ts";

const at = (s: number) => new Date(Date.UTC(2025, 0, 1, 0, 0, s));

describe("SqliteAlarmStore, on a real database file", () => {
  let dir: string;
  let handle: DatabaseHandle;
  let store: SqliteStore;
  let projectId: string;
  let assetId: string;
  let ruleId: string;
  let userId: string;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), "caudal-alarm-store-"));
    handle = openDatabase(join(dir, "caudal.db"));
    store = new SqliteStore(handle);
    projectId = randomUUID();
    assetId = randomUUID();
    ruleId = randomUUID();
    await store.field.insertProject({
      id: projectId,
      name: "p",
      slug: "p",
      createdAt: at(0),
      updatedAt: at(0),
    });
    await store.field.insertAsset({
      id: assetId,
      projectId,
      name: "Well 1",
      assetType: "well",
      createdAt: at(0),
      updatedAt: at(0),
    });
    userId = randomUUID();
    // Users are not on a port yet: the row goes in through the connection.
    handle.sqlite
      .prepare(
        "INSERT INTO users (id, email, name, role, password_hash, created_at, updated_at) VALUES (?, ?, 'U', 'admin', 'x', 0, 0)",
      )
      .run(userId, `${userId}@example.com`);
    await store.alarms.insertRule({
      id: ruleId,
      projectId,
      name: "High",
      variableAlias: "pressure",
      condition: "gt",
      threshold: 100,
      severity: "critical",
      createdAt: at(0),
      updatedAt: at(0),
    });
  });
  afterEach(() => {
    handle.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const alarm = (id: string, timestamp: Date, over: Partial<RaisedAlarm> = {}): RaisedAlarm => ({
    id,
    projectId,
    assetId,
    ruleId,
    variable: "pressure",
    value: 150,
    alarmType: "high",
    severity: "critical",
    message: "High",
    timestamp,
    source: "server",
    createdAt: at(100),
    ...over,
  });

  it("raise stores the alarm active and its raised event at the alarm's own time and value", async () => {
    const row = await store.alarms.raise(alarm("a", at(5)));
    expect(row).toMatchObject({ id: "a", active: true, acknowledged: false, returnedAt: null });
    const history = await store.alarms.history({ projectId, limit: 10 });
    expect(history.map((h) => [h.event.event, h.event.at, h.event.value, h.event.userId])).toEqual([
      ["raised", at(5), 150, null],
    ]);
  });

  it("returns matching active alarms in raise order (timestamp, created_at, id), their events written so", async () => {
    // Inserted out of that order, so neither insertion nor rowid order gives it.
    await store.alarms.raise(alarm("c", at(2)));
    await store.alarms.raise(alarm("b", at(1), { createdAt: at(101) }));
    await store.alarms.raise(alarm("a2", at(1)));
    await store.alarms.raise(alarm("agent", at(0), { source: "agent" }));
    const returned = await store.alarms.returnToNormal(
      { ruleId, source: "server" },
      { at: at(50), value: null, userId: null },
    );
    expect(returned.map((r) => [r.id, r.active, r.returnedAt])).toEqual([
      ["a2", false, at(50)],
      ["b", false, at(50)],
      ["c", false, at(50)],
    ]);
    // The same instant: the last written first.
    const cleared = (await store.alarms.history({ projectId, from: at(50), limit: 10 })).map(
      (h) => h.alarm.id,
    );
    expect(cleared).toEqual(["c", "b", "a2"]);
    // Returned alarms match no more; the agent's stays active.
    expect(
      await store.alarms.returnToNormal(
        { ruleId, source: "server" },
        { at: at(60), value: null, userId: null },
      ),
    ).toEqual([]);
    expect((await store.alarms.alarm("agent"))?.active).toBe(true);
  });

  it("breaks ties between events of one instant by write order, newest first, whatever their ids", async () => {
    const ids = ["m", "z", "a"];
    for (const id of ids) await store.alarms.raise(alarm(id, at(7)));
    const history = await store.alarms.history({ projectId, limit: 10 });
    expect(history.map((h) => h.alarm.id)).toEqual(["a", "z", "m"]);
    expect((await store.alarms.history({ projectId, limit: 2 })).map((h) => h.alarm.id)).toEqual(["a", "z"]);
  });

  it("acknowledges once: the first acknowledgement stays and a second writes nothing", async () => {
    await store.alarms.raise(alarm("a", at(1)));
    const first = await store.alarms.acknowledge("a", at(2), userId);
    expect(first).toMatchObject({ acknowledged: true, acknowledgedAt: at(2), acknowledgedBy: userId });
    expect(await store.alarms.acknowledge("a", at(3), userId)).toBeUndefined();
    expect(await store.alarms.acknowledge("missing", at(3), userId)).toBeUndefined();
    const events = (await store.alarms.history({ projectId, limit: 10 })).map((h) => [
      h.event.event,
      h.event.at,
      h.event.userId,
    ]);
    expect(events).toEqual([
      ["acknowledged", at(2), userId],
      ["raised", at(1), null],
    ]);
  });

  it("lists alarms until returned and acknowledged, newest first", async () => {
    await store.alarms.raise(alarm("old", at(1)));
    await store.alarms.raise(alarm("new", at(2)));
    await store.alarms.raise(alarm("done", at(3)));
    await store.alarms.returnToNormal({ alarmId: "done" }, { at: at(4), value: 1, userId: null });
    expect((await store.alarms.listed(projectId)).map((a) => a.id)).toEqual(["done", "new", "old"]);
    await store.alarms.acknowledge("done", at(5), userId);
    expect((await store.alarms.listed(projectId)).map((a) => a.id)).toEqual(["new", "old"]);
  });

  it("finds the asset's one active comm_loss alarm, and the server's active alarms", async () => {
    expect(await store.alarms.activeCommLoss(projectId, assetId)).toBeUndefined();
    await store.alarms.raise(alarm("cl", at(1), { alarmType: "comm_loss", ruleId: null, variable: "comm" }));
    await store.alarms.raise(alarm("agent", at(1), { source: "agent" }));
    expect(await store.alarms.activeCommLoss(projectId, assetId)).toBe("cl");
    expect((await store.alarms.activeServerAlarms()).map((a) => a.id)).toEqual(["cl"]);
    await store.alarms.returnToNormal({ alarmId: "cl" }, { at: at(2), value: 60, userId: null });
    expect(await store.alarms.activeCommLoss(projectId, assetId)).toBeUndefined();
  });

  it("a raise that fails inside a transaction leaves neither the alarm nor its event", async () => {
    await store.alarms.raise(alarm("a", at(1)));
    const failed = store.transaction(async (tx) => {
      await tx.alarms.raise(alarm("b", at(2)));
      await tx.alarms.raise(alarm("a", at(3))); // the id is taken
    });
    await expect(failed).rejects.toThrow();
    expect((await store.alarms.history({ projectId, limit: 10 })).map((h) => h.alarm.id)).toEqual(["a"]);
  });

  it("deleting a rule keeps its alarms and their history, no longer tied to it", async () => {
    await store.alarms.raise(alarm("a", at(1)));
    await store.alarms.deleteRule(ruleId);
    expect(await store.alarms.rule(ruleId)).toBeUndefined();
    expect((await store.alarms.alarm("a"))?.ruleId).toBeNull();
    expect(await store.alarms.history({ projectId, limit: 10 })).toHaveLength(1);
  });
});
