import { afterEach, beforeEach, expect, it } from "vitest";
import type { ContractBackend, StoreUnderTest } from "./backend.ts";
import { at, newAsset, newDevice, newProject, newVariable } from "./fixtures.ts";

/** FieldStore below projects (assets, devices, variables; server/store/ports/field-store.ts). */
export function fieldModelContract(backend: ContractBackend): void {
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

  it("writes assets, devices and variables and reads them back; updates return the new row, undefined when missing", async () => {
    const f = t.store.field;
    const asset = await f.insertAsset({ ...newAsset(p, "W-1"), latitude: 4.1 });
    expect(await f.asset(asset.id)).toStrictEqual(asset);
    expect(await f.asset("missing")).toBeUndefined();
    const updatedAsset = await f.updateAsset(asset.id, { name: "W-2", updatedAt: at(9) });
    expect(updatedAsset).toStrictEqual({ ...asset, name: "W-2", updatedAt: at(9) });
    expect(await f.updateAsset("missing", { name: "x" })).toBeUndefined();

    const device = await f.insertDevice({ ...newDevice(asset.id, "PLC"), settings: { b: 1, a: [2] } });
    expect(await f.device(device.id)).toStrictEqual({ device, projectId: p });
    expect(await f.device("missing")).toBeUndefined();
    expect(await f.updateDevice(device.id, { enabled: false })).toStrictEqual({ ...device, enabled: false });
    expect(await f.updateDevice("missing", { enabled: false })).toBeUndefined();

    const variable = await f.insertVariable(newVariable(device.id, "p"));
    expect(await f.variable(variable.id)).toStrictEqual({
      variable,
      assetId: asset.id,
      protocol: "modbus_tcp",
      projectId: p,
    });
    expect(await f.variable("missing")).toBeUndefined();
    expect(await f.updateVariable(variable.id, { unit: "psi" })).toStrictEqual({ ...variable, unit: "psi" });
    expect(await f.updateVariable("missing", { unit: "psi" })).toBeUndefined();
  });

  it("lists tanks by name in byte order then id, of the projects asked for (none for none)", async () => {
    const f = t.store.field;
    await f.insertAsset({ ...newAsset(p, "b", "t-3"), assetType: "tank" });
    await f.insertAsset({ ...newAsset(p, "B", "t-2"), assetType: "tank" });
    await f.insertAsset({ ...newAsset(q, "b", "t-1"), assetType: "tank" });
    await f.insertAsset({ ...newAsset(p, "a", "w-1"), assetType: "well" });
    expect((await f.tanks()).map((a) => a.id)).toEqual(["t-2", "t-1", "t-3"]);
    expect((await f.tanks([p])).map((a) => a.id)).toEqual(["t-2", "t-3"]);
    expect(await f.tanks([])).toEqual([]);
  });

  it("deletes down the tree: a variable, a device with its variables, an asset with its devices", async () => {
    const f = t.store.field;
    const asset = await f.insertAsset(newAsset(p, "W"));
    const [d1, d2] = [
      await f.insertDevice(newDevice(asset.id, "1")),
      await f.insertDevice(newDevice(asset.id, "2")),
    ];
    const [v1, v2] = [
      await f.insertVariable(newVariable(d1.id, "a")),
      await f.insertVariable(newVariable(d1.id, "b")),
    ];
    const v3 = await f.insertVariable(newVariable(d2.id, "c"));
    await f.deleteVariable(v1.id);
    await f.deleteVariable("missing");
    expect((await f.variablesOf([d1.id, d2.id])).map((v) => v.id)).toEqual([v2.id, v3.id]);
    await f.deleteDevice(d1.id);
    await f.deleteDevice("missing");
    expect(await f.variable(v2.id)).toBeUndefined();
    expect((await f.devicesOf([asset.id])).map((d) => d.id)).toEqual([d2.id]);
    await f.deleteAsset(asset.id);
    await f.deleteAsset("missing");
    expect(await f.asset(asset.id)).toBeUndefined();
    expect(await f.device(d2.id)).toBeUndefined();
    expect(await f.variable(v3.id)).toBeUndefined();
  });

  it("counts the records naming an asset: its well tests, and its meter readings as the meter", async () => {
    const f = t.store.field;
    const well = await f.insertAsset(newAsset(p, "W"));
    const meter = await f.insertAsset({ ...newAsset(p, "M"), assetType: "meter" });
    expect(await f.assetRecordCounts(well.id)).toEqual({ wellTests: 0, meterReadings: 0 });
    const base = { projectId: p, createdAt: at() };
    for (const id of ["t1", "t2"]) {
      await t.store.records.append("well_test", { ...base, id, assetId: well.id, testDate: at() });
    }
    await t.store.records.append("meter_reading", {
      ...base,
      id: "r1",
      meterId: meter.id,
      readingValue: 1,
      readAt: at(),
    });
    expect(await f.assetRecordCounts(well.id)).toEqual({ wellTests: 2, meterReadings: 0 });
    expect(await f.assetRecordCounts(meter.id)).toEqual({ wellTests: 0, meterReadings: 1 });
    expect(await f.assetRecordCounts("missing")).toEqual({ wellTests: 0, meterReadings: 0 });
  });

  it("finds a variable of the asset with an alias (case counts), other than the one excepted, lowest id first", async () => {
    const f = t.store.field;
    const asset = await f.insertAsset(newAsset(p, "W"));
    const other = await f.insertAsset(newAsset(p, "X"));
    const [d1, d2] = [
      await f.insertDevice(newDevice(asset.id, "1")),
      await f.insertDevice(newDevice(asset.id, "2")),
    ];
    const d3 = await f.insertDevice(newDevice(other.id, "3"));
    await f.insertVariable(newVariable(d2.id, "flow", "v-2"));
    await f.insertVariable(newVariable(d1.id, "flow", "v-1"));
    await f.insertVariable(newVariable(d3.id, "level", "v-3"));
    expect(await f.variableWithAlias(asset.id, "flow")).toEqual({ id: "v-1", deviceId: d1.id });
    expect(await f.variableWithAlias(asset.id, "flow", "v-1")).toEqual({ id: "v-2", deviceId: d2.id });
    expect(await f.variableWithAlias(asset.id, "Flow")).toBeUndefined();
    expect(await f.variableWithAlias(asset.id, "level")).toBeUndefined();
  });
}
