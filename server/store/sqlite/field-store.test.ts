import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { FieldStore } from "../ports/field-store.ts";
import type { AssetRow } from "../rows.ts";
import { type DatabaseHandle, openDatabase } from "./client.ts";
import { SqliteStore } from "./sqlite-store.ts";

/*
 * What the field port promises beyond plain reads and writes (server/store/ports/field-store.ts):
 * the order of the tank list, which projects it covers, and which variables clash on an alias.
 * Only the port is used, so the same checks hold for any adapter.
 */
describe("SqliteFieldStore, on a real database file", () => {
  let dir: string;
  let handle: DatabaseHandle;
  let field: FieldStore;
  const now = new Date();

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "caudal-field-store-"));
    handle = openDatabase(join(dir, "caudal.db"));
    field = new SqliteStore(handle).field;
  });
  afterEach(() => {
    handle.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const project = async (name: string) =>
    (await field.insertProject({ id: randomUUID(), name, slug: name, createdAt: now, updatedAt: now })).id;
  const asset = (
    projectId: string,
    name: string,
    assetType: AssetRow["assetType"] = "tank",
    id = randomUUID(),
  ) => field.insertAsset({ id, projectId, name, assetType, createdAt: now, updatedAt: now });
  const device = async (assetId: string, name: string) =>
    (
      await field.insertDevice({
        id: randomUUID(),
        assetId,
        name,
        protocol: "modbus_tcp",
        createdAt: now,
        updatedAt: now,
      })
    ).id;
  const variable = async (deviceId: string, alias: string, id = randomUUID()) =>
    (await field.insertVariable({ id, deviceId, alias, dataType: "float", createdAt: now, updatedAt: now }))
      .id;

  it("lists tanks by name then id, of the projects asked for, of every project when none are named", async () => {
    const a = await project("a");
    const b = await project("b");
    const c = await project("c");
    await asset(a, "T-2", "tank", "00000000-0000-4000-8000-000000000002");
    await asset(b, "T-2", "tank", "00000000-0000-4000-8000-000000000001");
    await asset(a, "T-1");
    await asset(c, "T-0");
    await asset(a, "W-1", "well");
    const names = async (ids?: readonly string[]) =>
      (await field.tanks(ids)).map(
        (t) => `${t.name}@${t.projectId === a ? "a" : t.projectId === b ? "b" : "c"}`,
      );

    expect(await names()).toEqual(["T-0@c", "T-1@a", "T-2@b", "T-2@a"]);
    expect(await names([a, b])).toEqual(["T-1@a", "T-2@b", "T-2@a"]);
    expect(await names([b])).toEqual(["T-2@b"]);
    expect(await names([])).toEqual([]);
  });

  it("finds an alias clash on any device of the asset, except the variable named, and only there", async () => {
    const p = await project("p");
    const tank = (await asset(p, "tank")).id;
    const other = (await asset(p, "other")).id;
    const d1 = await device(tank, "d1");
    const d2 = await device(tank, "d2");
    const d3 = await device(other, "d3");
    const level = await variable(d1, "level");
    await variable(d3, "pressure");

    expect(await field.variableWithAlias(tank, "level")).toEqual({ id: level, deviceId: d1 });
    expect(await field.variableWithAlias(tank, "level", level)).toBeUndefined();
    expect(await field.variableWithAlias(tank, "Level")).toBeUndefined();
    expect(await field.variableWithAlias(tank, "pressure")).toBeUndefined();
    expect(await field.variableWithAlias(other, "pressure")).toMatchObject({ deviceId: d3 });

    // Rows written before the rule (one alias on two devices of an asset): the lowest id answers.
    await variable(d1, "flow", "00000000-0000-4000-8000-00000000000b");
    const low = await variable(d2, "flow", "00000000-0000-4000-8000-00000000000a");
    expect(await field.variableWithAlias(tank, "flow")).toEqual({ id: low, deviceId: d2 });
  });

  it("answers a device and a variable with the project above them, and undefined for unknown ids", async () => {
    const p = await project("p");
    const tank = (await asset(p, "tank")).id;
    const d = await device(tank, "d");
    const v = await variable(d, "level");

    expect(await field.device(d)).toMatchObject({ device: { id: d, assetId: tank }, projectId: p });
    expect(await field.variable(v)).toMatchObject({
      variable: { id: v, deviceId: d },
      assetId: tank,
      protocol: "modbus_tcp",
      projectId: p,
    });
    expect(await field.assetRecordCounts(tank)).toEqual({ wellTests: 0, meterReadings: 0 });

    const unknown = randomUUID();
    expect(await field.asset(unknown)).toBeUndefined();
    expect(await field.device(unknown)).toBeUndefined();
    expect(await field.variable(unknown)).toBeUndefined();
    expect(await field.updateAsset(unknown, { name: "x" })).toBeUndefined();
    expect(await field.updateDevice(unknown, { name: "x" })).toBeUndefined();
    expect(await field.updateVariable(unknown, { alias: "x" })).toBeUndefined();
  });

  it("removes a device's variables with it, and an asset's devices with it", async () => {
    const p = await project("p");
    const tank = (await asset(p, "tank")).id;
    const d1 = await device(tank, "d1");
    const d2 = await device(tank, "d2");
    await variable(d1, "a");
    await variable(d2, "b");

    await field.deleteDevice(d1);
    expect((await field.variablesOf([d1, d2])).map((v) => v.alias)).toEqual(["b"]);
    await field.deleteAsset(tank);
    expect(await field.devicesOf([tank])).toEqual([]);
    expect(await field.variablesOf([d2])).toEqual([]);
  });
});
