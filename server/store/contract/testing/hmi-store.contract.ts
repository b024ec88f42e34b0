import { randomUUID } from "node:crypto";
import { afterEach, beforeEach, expect, it } from "vitest";
import type { ContractBackend, StoreUnderTest } from "./backend.ts";
import { at, newAsset, newDevice, newProject, newVariable } from "./fixtures.ts";

/** HmiStore (server/store/ports/hmi-store.ts) on every backend. */
export function hmiStoreContract(backend: ContractBackend): void {
  let t: StoreUnderTest;
  let p: string;
  let q: string;
  beforeEach(async () => {
    t = await backend.open();
    p = (await t.store.field.insertProject(newProject("P"))).id;
    q = (await t.store.field.insertProject(newProject("Q"))).id;
  });
  afterEach(async () => {
    await t.close();
  });

  it("reads a project's field model: assets, enabled variables of enabled devices, newest readings, comm loss", async () => {
    const report = { agent: "1.2.3", uptime_s: 42, disks: [{ free: 0.5 }] };
    await t.store.field.updateProject(p, { lastHealthReport: report });
    const [a1, a2] = [
      { ...newAsset(p, "Second", "a-2"), createdAt: at(2) },
      { ...newAsset(p, "First", "a-1"), createdAt: at(2) },
    ];
    const early = { ...newAsset(p, "Early", "a-0"), createdAt: at(1) };
    const elsewhere = newAsset(q, "Elsewhere");
    await t.seed.assets([a1, a2, early, elsewhere]);
    await t.seed.devices([
      newDevice(a1.id, "B-dev", "d-1"),
      newDevice(a2.id, "A-dev", "d-2"),
      { ...newDevice(a2.id, "Off", "d-3"), enabled: false },
      newDevice(elsewhere.id, "Q-dev", "d-4"),
    ]);
    await t.seed.variables([
      { ...newVariable("d-1", "zeta"), unit: "psi", scaleFactor: 0.1 },
      newVariable("d-1", "alpha"),
      { ...newVariable("d-2", "off"), enabled: false },
      { ...newVariable("d-2", "flow"), dataType: "int32" },
      newVariable("d-3", "hidden"),
      newVariable("d-4", "other"),
    ]);
    await t.seed.telemetrySeries([
      { id: 1, projectId: p, assetId: a1.id, variable: "zeta", unit: null, lastTs: 2 ** 41, lastValue: -1.5 },
      { id: 2, projectId: p, assetId: a2.id, variable: "flow", unit: null, lastTs: null, lastValue: null },
      { id: 3, projectId: q, assetId: elsewhere.id, variable: "other", unit: null, lastTs: 5, lastValue: 5 },
    ]);
    const raise = (id: string, assetId: string, alarmType: "comm_loss" | "high", projectId = p) =>
      t.store.alarms.raise({
        id,
        projectId,
        assetId,
        ruleId: null,
        variable: "comm",
        value: 60,
        alarmType,
        severity: "critical",
        message: "m",
        timestamp: at(3),
        createdAt: at(3),
      });
    await raise("cl-1", a1.id, "comm_loss");
    await raise("cl-2", a2.id, "comm_loss");
    await raise("hi", early.id, "high");
    await raise("cl-q", elsewhere.id, "comm_loss", q);
    await t.store.alarms.returnToNormal({ alarmId: "cl-2" }, { at: at(4), value: null, userId: null });

    expect(await t.store.hmi.fieldModel(p)).toStrictEqual({
      healthReport: report,
      assets: [
        { id: "a-0", name: "Early" },
        { id: "a-1", name: "First" },
        { id: "a-2", name: "Second" },
      ],
      variables: [
        { assetId: "a-1", alias: "flow", dataType: "int32", scaleFactor: null, unit: null },
        { assetId: "a-2", alias: "alpha", dataType: "float", scaleFactor: null, unit: null },
        { assetId: "a-2", alias: "zeta", dataType: "float", scaleFactor: 0.1, unit: "psi" },
      ],
      latest: [{ assetId: "a-2", variable: "zeta", ts: 2 ** 41, value: -1.5 }],
      commLossAssetIds: ["a-2"],
    });
    expect(await t.store.hmi.fieldModel(randomUUID())).toBeUndefined();
    const empty = (await t.store.field.insertProject(newProject("Empty"))).id;
    expect(await t.store.hmi.fieldModel(empty)).toStrictEqual({
      healthReport: null,
      assets: [],
      variables: [],
      latest: [],
      commLossAssetIds: [],
    });
  });

  it("hands out each project's bdSeq from 0, stored before it is returned, wrapping at 256", async () => {
    expect(await t.store.hmi.nextBdSeq(p)).toBe(0);
    expect(await t.store.hmi.nextBdSeq(p)).toBe(1);
    expect(await t.store.hmi.nextBdSeq(q)).toBe(0);
    const many = await Promise.all(Array.from({ length: 8 }, () => t.store.hmi.nextBdSeq(p)));
    expect([...many].sort((x, y) => x - y)).toEqual([2, 3, 4, 5, 6, 7, 8, 9]);
    for (let n = 10; n < 256; n++) await t.store.hmi.nextBdSeq(p);
    expect(await t.store.hmi.nextBdSeq(p)).toBe(0);
    await expect(t.store.hmi.nextBdSeq(randomUUID())).rejects.toThrow();
  });
}
