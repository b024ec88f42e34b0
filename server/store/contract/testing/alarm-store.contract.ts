import { randomUUID } from "node:crypto";
import { afterEach, beforeEach, expect, it } from "vitest";
import type { RaisedAlarm } from "../../ports/alarm-store.ts";
import type { NewAlertRuleRow } from "../../rows.ts";
import type { ContractBackend, StoreUnderTest } from "./backend.ts";
import { newAsset, newProject, newUser } from "./fixtures.ts";

const at = (s: number) => new Date(Date.UTC(2025, 0, 1, 0, 0, s));

/** AlarmStore (server/store/ports/alarm-store.ts) on every backend. */
export function alarmStoreContract(backend: ContractBackend): void {
  let t: StoreUnderTest;
  let projectId: string;
  let otherProject: string;
  let assetId: string;
  let ruleId: string;
  let userId: string;

  const rule = (id: string, more: Partial<NewAlertRuleRow> = {}): NewAlertRuleRow => ({
    id,
    projectId,
    name: "High",
    variableAlias: "pressure",
    condition: "gt",
    threshold: 100,
    severity: "critical",
    createdAt: at(0),
    updatedAt: at(0),
    ...more,
  });

  beforeEach(async () => {
    t = await backend.open();
    projectId = (await t.store.field.insertProject(newProject("P"))).id;
    otherProject = (await t.store.field.insertProject(newProject("Q"))).id;
    const asset = newAsset(projectId, "Well 1");
    await t.seed.assets([asset]);
    assetId = asset.id;
    userId = (await t.store.identity.insertUser(newUser({ role: "admin" }))).id;
    ruleId = randomUUID();
    await t.store.alarms.insertRule(rule(ruleId));
  });
  afterEach(async () => {
    await t.close();
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

  it("stores rules with the schema's defaults, lists them by created_at then id, updates and deletes them", async () => {
    const stored = await t.store.alarms.rule(ruleId);
    expect(stored).toStrictEqual({ ...rule(ruleId), isEnabled: true, deadband: 0, delaySeconds: 0 });
    await t.store.alarms.insertRule(rule("b", { createdAt: at(1), isEnabled: false }));
    await t.store.alarms.insertRule(rule("a", { createdAt: at(1), deadband: 0.5, delaySeconds: 30 }));
    await t.store.alarms.insertRule(rule("other", { projectId: otherProject }));
    expect((await t.store.alarms.rulesOf(projectId)).map((r) => r.id)).toEqual([ruleId, "a", "b"]);
    expect((await t.store.alarms.enabledRulesOf(projectId)).map((r) => r.id)).toEqual([ruleId, "a"]);
    expect(
      await t.store.alarms.updateRule("b", { isEnabled: true, threshold: -1.5, updatedAt: at(9) }),
    ).toMatchObject({
      id: "b",
      isEnabled: true,
      threshold: -1.5,
      updatedAt: at(9),
    });
    expect((await t.store.alarms.enabledRulesOf(projectId)).map((r) => r.id)).toEqual([ruleId, "a", "b"]);
    expect(await t.store.alarms.updateRule("missing", { name: "x" })).toBeUndefined();
    await t.store.alarms.deleteRule("a");
    await t.store.alarms.deleteRule("missing");
    expect(await t.store.alarms.rule("a")).toBeUndefined();
  });

  it("raise stores the alarm active and its raised event at the alarm's own time and value", async () => {
    const row = await t.store.alarms.raise(alarm("a", at(5)));
    expect(row).toStrictEqual({
      ...alarm("a", at(5)),
      active: true,
      returnedAt: null,
      acknowledged: false,
      acknowledgedAt: null,
      acknowledgedBy: null,
    });
    expect(await t.store.alarms.alarm("a")).toStrictEqual(row);
    expect(await t.store.alarms.alarm("missing")).toBeUndefined();
    const history = await t.store.alarms.history({ projectId, limit: 10 });
    expect(history).toHaveLength(1);
    expect(Object.keys(history[0]?.event ?? {}).sort()).toEqual([
      "alarmId",
      "at",
      "event",
      "id",
      "userId",
      "value",
    ]);
    expect(history.map((h) => [h.event.event, h.event.at, h.event.value, h.event.userId, h.alarm])).toEqual([
      ["raised", at(5), 150, null, row],
    ]);
  });

  it("returns matching active alarms in raise order (timestamp, created_at, id), their events written so", async () => {
    await t.store.alarms.raise(alarm("c", at(2)));
    await t.store.alarms.raise(alarm("b", at(1), { createdAt: at(101) }));
    await t.store.alarms.raise(alarm("a2", at(1)));
    await t.store.alarms.raise(alarm("agent", at(0), { source: "agent" }));
    const returned = await t.store.alarms.returnToNormal(
      { ruleId, source: "server" },
      { at: at(50), value: null, userId: null },
    );
    expect(returned.map((r) => [r.id, r.active, r.returnedAt])).toEqual([
      ["a2", false, at(50)],
      ["b", false, at(50)],
      ["c", false, at(50)],
    ]);
    const cleared = (await t.store.alarms.history({ projectId, from: at(50), limit: 10 })).map(
      (h) => h.alarm.id,
    );
    expect(cleared).toEqual(["c", "b", "a2"]);
    expect(
      await t.store.alarms.returnToNormal(
        { ruleId, source: "server" },
        { at: at(60), value: null, userId: null },
      ),
    ).toEqual([]);
    expect((await t.store.alarms.alarm("agent"))?.active).toBe(true);
    const byAsset = await t.store.alarms.returnToNormal(
      { ruleId, assetId },
      { at: at(70), value: 3, userId },
    );
    expect(byAsset.map((r) => r.id)).toEqual(["agent"]);
    expect((await t.store.alarms.history({ projectId, from: at(70), limit: 1 }))[0]?.event).toMatchObject({
      event: "cleared",
      value: 3,
      userId,
    });
  });

  it("breaks ties between events of one instant by write order, newest first, whatever their ids", async () => {
    for (const id of ["m", "z", "a"]) await t.store.alarms.raise(alarm(id, at(7)));
    expect((await t.store.alarms.history({ projectId, limit: 10 })).map((h) => h.alarm.id)).toEqual([
      "a",
      "z",
      "m",
    ]);
    expect((await t.store.alarms.history({ projectId, limit: 2 })).map((h) => h.alarm.id)).toEqual([
      "a",
      "z",
    ]);
  });

  it("filters the history by time (both ends inclusive), asset, severity and type", async () => {
    const other = newAsset(projectId, "Well 2");
    await t.seed.assets([other]);
    await t.store.alarms.raise(alarm("a", at(1)));
    await t.store.alarms.raise(alarm("b", at(2), { assetId: other.id, severity: "warning" }));
    await t.store.alarms.raise(alarm("c", at(3), { alarmType: "low" }));
    await t.store.alarms.raise(alarm("d", at(4), { projectId: otherProject, assetId: null }));
    const ids = async (filter: Partial<Parameters<typeof t.store.alarms.history>[0]>) =>
      (await t.store.alarms.history({ projectId, limit: 10, ...filter })).map((h) => h.alarm.id);
    expect(await ids({})).toEqual(["c", "b", "a"]);
    expect(await ids({ from: at(2), to: at(3) })).toEqual(["c", "b"]);
    expect(await ids({ assetId })).toEqual(["c", "a"]);
    expect(await ids({ severity: "warning" })).toEqual(["b"]);
    expect(await ids({ alarmType: "low" })).toEqual(["c"]);
  });

  it("acknowledges once: the first acknowledgement stays and a second writes nothing", async () => {
    await t.store.alarms.raise(alarm("a", at(1)));
    const first = await t.store.alarms.acknowledge("a", at(2), userId);
    expect(first).toMatchObject({ acknowledged: true, acknowledgedAt: at(2), acknowledgedBy: userId });
    expect(await t.store.alarms.acknowledge("a", at(3), userId)).toBeUndefined();
    expect(await t.store.alarms.acknowledge("missing", at(3), userId)).toBeUndefined();
    const events = (await t.store.alarms.history({ projectId, limit: 10 })).map((h) => [
      h.event.event,
      h.event.at,
      h.event.userId,
    ]);
    expect(events).toEqual([
      ["acknowledged", at(2), userId],
      ["raised", at(1), null],
    ]);
  });

  it("lists and counts alarms until returned and acknowledged, newest first", async () => {
    await t.store.alarms.raise(alarm("old", at(1)));
    await t.store.alarms.raise(alarm("new", at(2)));
    await t.store.alarms.raise(alarm("done", at(3)));
    await t.store.alarms.raise(alarm("q", at(3), { projectId: otherProject, assetId: null }));
    await t.store.alarms.returnToNormal({ alarmId: "done" }, { at: at(4), value: 1, userId: null });
    expect((await t.store.alarms.listed(projectId)).map((a) => a.id)).toEqual(["done", "new", "old"]);
    await t.store.alarms.acknowledge("done", at(5), userId);
    expect((await t.store.alarms.listed(projectId)).map((a) => a.id)).toEqual(["new", "old"]);
    expect(await t.store.alarms.listedCount()).toBe(3);
    expect(await t.store.alarms.listedCount([projectId])).toBe(2);
    expect(await t.store.alarms.listedCount([])).toBe(0);
  });

  it("finds the asset's one active comm_loss alarm, and the server's active alarms", async () => {
    expect(await t.store.alarms.activeCommLoss(projectId, assetId)).toBeUndefined();
    await t.store.alarms.raise(
      alarm("cl", at(1), { alarmType: "comm_loss", ruleId: null, variable: "comm" }),
    );
    await t.store.alarms.raise(alarm("agent", at(1), { source: "agent" }));
    expect(await t.store.alarms.activeCommLoss(projectId, assetId)).toBe("cl");
    expect(await t.store.alarms.activeServerAlarms()).toStrictEqual([
      { id: "cl", ruleId: null, assetId, alarmType: "comm_loss", timestamp: at(1) },
    ]);
    await t.store.alarms.returnToNormal({ alarmId: "cl" }, { at: at(2), value: 60, userId: null });
    expect(await t.store.alarms.activeCommLoss(projectId, assetId)).toBeUndefined();
    expect(await t.store.alarms.activeServerAlarms()).toEqual([]);
  });

  it("lists the alarms raised in [from, to) by timestamp then id, whatever their state", async () => {
    await t.store.alarms.raise(alarm("b", at(2)));
    await t.store.alarms.raise(alarm("a", at(2)));
    await t.store.alarms.raise(alarm("c", at(1)));
    await t.store.alarms.raise(alarm("end", at(3)));
    await t.store.alarms.raise(alarm("q", at(2), { projectId: otherProject, assetId: null }));
    await t.store.alarms.returnToNormal({ alarmId: "a" }, { at: at(2), value: 1, userId: null });
    expect((await t.store.alarms.raisedIn(projectId, at(1), at(3))).map((a) => a.id)).toEqual([
      "c",
      "a",
      "b",
    ]);
  });

  it("a raise that fails inside a transaction leaves neither the alarm nor its event", async () => {
    await t.store.alarms.raise(alarm("a", at(1)));
    const failed = t.store.transaction(async (tx) => {
      await tx.alarms.raise(alarm("b", at(2)));
      await tx.alarms.raise(alarm("a", at(3))); // the id is taken
    });
    await expect(failed).rejects.toThrow();
    expect((await t.store.alarms.history({ projectId, limit: 10 })).map((h) => h.alarm.id)).toEqual(["a"]);
  });

  it("deleting a rule keeps its alarms and their history, no longer tied to it", async () => {
    await t.store.alarms.raise(alarm("a", at(1)));
    await t.store.alarms.deleteRule(ruleId);
    expect(await t.store.alarms.rule(ruleId)).toBeUndefined();
    expect((await t.store.alarms.alarm("a"))?.ruleId).toBeNull();
    expect(await t.store.alarms.history({ projectId, limit: 10 })).toHaveLength(1);
  });
}
