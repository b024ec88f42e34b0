import { afterEach, beforeEach, expect, it } from "vitest";
import type { ContractBackend, StoreUnderTest } from "./backend.ts";
import { at, byBytes, newAsset, newDevice, newProject, newUser, newVariable } from "./fixtures.ts";

/** FieldStore (server/store/ports/field-store.ts): what every backend must answer alike. */
export function fieldStoreContract(backend: ContractBackend): void {
  let t: StoreUnderTest;
  beforeEach(async () => {
    t = await backend.open();
  });
  afterEach(async () => {
    await t.close();
  });

  it("inserts a project and reads it back as inserted, with the schema's defaults; a missing one is undefined", async () => {
    const row = newProject("Campo Rubiales", { description: "d", lastHealthReport: { z: 1, a: [0.1, "ü"] } });
    const inserted = await t.store.field.insertProject(row);
    const expected = {
      location: null,
      isActive: true,
      timezone: "America/Bogota",
      agentTokenHash: null,
      autoDeploy: true,
      sparkplugEdgeNodeId: "agent",
      sparkplugPrimaryHostId: null,
      ...row,
    };
    expect(inserted).toStrictEqual(expected);
    expect(await t.store.field.project(row.id)).toStrictEqual(expected);
    expect(await t.store.field.project("no-such-project")).toBeUndefined();
  });

  it("lists projects by name in byte order, then by id; only those asked for; none for no ids", async () => {
    // Ties written in descending id order: a backend that left them in table order fails.
    const names = ["b", "B", "a", "á", "Z", "_x", "a", "a b", "ab", "a", "b", "a"];
    const rows = names.map((name, i) => newProject(name, { id: `id-${20 - i}`, slug: `s-${i}` }));
    for (const row of rows) await t.store.field.insertProject(row);
    const expected = [...rows].sort((x, y) => byBytes(x.name, y.name) || byBytes(x.id, y.id));
    expect((await t.store.field.projects()).map((p) => p.id)).toEqual(expected.map((p) => p.id));
    expect(expected.map((p) => p.name)).toEqual([
      "B",
      "Z",
      "_x",
      "a",
      "a",
      "a",
      "a",
      "a b",
      "ab",
      "b",
      "b",
      "á",
    ]);
    const some = [rows[0]?.id, rows[2]?.id, rows[6]?.id, rows[10]?.id].flatMap((id) => (id ? [id] : []));
    expect((await t.store.field.projects([...some, "no-such-project"])).map((p) => p.id)).toEqual([
      "id-14",
      "id-18",
      "id-10",
      "id-20",
    ]);
    expect(await t.store.field.projects([])).toEqual([]);
  });

  it("finds a project by slug, other than the one excepted; undefined when none has it", async () => {
    const p = newProject("P", { slug: "pozo" });
    await t.store.field.insertProject(p);
    expect(await t.store.field.projectIdWithSlug("pozo")).toBe(p.id);
    expect(await t.store.field.projectIdWithSlug("pozo", "someone-else")).toBe(p.id);
    expect(await t.store.field.projectIdWithSlug("pozo", p.id)).toBeUndefined();
    expect(await t.store.field.projectIdWithSlug("Pozo")).toBeUndefined();
    expect(await t.store.field.projectIdWithSlug("poz")).toBeUndefined();
  });

  it("lists the slugs that begin with a prefix: case-sensitive, _ and % taken literally", async () => {
    for (const slug of ["well", "well-2", "wellhead", "Well-3", "wel", "a_b", "axb", "50%", "50x", "a\\b"]) {
      await t.store.field.insertProject(newProject("P", { slug }));
    }
    const from = async (prefix: string) => (await t.store.field.projectSlugsFrom(prefix)).sort(byBytes);
    expect(await from("well")).toEqual(["well", "well-2", "wellhead"]);
    expect(await from("a_")).toEqual(["a_b"]);
    expect(await from("50%")).toEqual(["50%"]);
    expect(await from("a\\")).toEqual(["a\\b"]);
    expect(await from("nothing")).toEqual([]);
  });

  it("gives projects made at once from one name distinct slugs: a transaction's slug reads wait for the others", async () => {
    // createProject's read-then-insert, eight at once.
    await Promise.all(
      Array.from({ length: 8 }, () =>
        t.store.transaction(async (tx) => {
          const used = new Set(await tx.field.projectSlugsFrom("well"));
          let slug = "well";
          for (let n = 2; used.has(slug); n++) slug = `well-${n}`;
          await tx.field.insertProject(newProject("Well", { slug }));
        }, {}),
      ),
    );
    expect((await t.store.field.projectSlugsFrom("well")).sort(byBytes)).toEqual([
      "well",
      "well-2",
      "well-3",
      "well-4",
      "well-5",
      "well-6",
      "well-7",
      "well-8",
    ]);
  });

  it("updates a project and returns the new row; undefined when there is none", async () => {
    const p = newProject("P");
    await t.store.field.insertProject(p);
    const updated = await t.store.field.updateProject(p.id, {
      name: "Q",
      isActive: false,
      location: "Meta",
      updatedAt: at(5000),
    });
    expect(updated).toMatchObject({
      id: p.id,
      name: "Q",
      isActive: false,
      location: "Meta",
      updatedAt: at(5000),
    });
    expect(await t.store.field.project(p.id)).toStrictEqual(updated);
    expect(await t.store.field.updateProject("no-such-project", { name: "R" })).toBeUndefined();
  });

  it("deletes a project with everything under it, and nothing else", async () => {
    const [p, q] = [newProject("P"), newProject("Q")];
    await t.store.field.insertProject(p);
    await t.store.field.insertProject(q);
    const [a, b] = [newAsset(p.id, "W-1"), newAsset(q.id, "W-1")];
    await t.seed.assets([a, b]);
    const user = newUser();
    await t.store.identity.insertUser(user);
    await t.store.field.assignProject(user.id, p.id);
    await t.store.field.assignProject(user.id, q.id);
    await t.store.field.deleteProject(p.id);
    await t.store.field.deleteProject("no-such-project");
    expect(await t.store.field.project(p.id)).toBeUndefined();
    expect(await t.store.field.assetsOf(p.id)).toEqual([]);
    expect((await t.store.field.assetsOf(q.id)).map((x) => x.id)).toEqual([b.id]);
    expect(await t.store.identity.projectIdsOf(user.id)).toEqual([q.id]);
  });

  it("assigns a project to a user once; an unknown user or project is refused", async () => {
    const p = newProject("P");
    await t.store.field.insertProject(p);
    const user = newUser();
    await t.store.identity.insertUser(user);
    await t.store.field.assignProject(user.id, p.id);
    expect(await t.store.identity.projectIdsOf(user.id)).toEqual([p.id]);
    await expect(t.store.field.assignProject(user.id, p.id)).rejects.toThrow();
    await expect(t.store.field.assignProject("no-such-user", p.id)).rejects.toThrow();
    await expect(t.store.field.assignProject(user.id, "no-such-project")).rejects.toThrow();
    expect(await t.store.identity.projectIdsOf(user.id)).toHaveLength(1);
  });

  it("lists assets, devices and variables by name (alias) in byte order, then id; none for no ids", async () => {
    const [p, q] = [newProject("P"), newProject("Q")];
    await t.store.field.insertProject(p);
    await t.store.field.insertProject(q);
    const assets = [
      newAsset(p.id, "b", "a-3"),
      newAsset(p.id, "B", "a-2"),
      newAsset(p.id, "b", "a-1"),
      newAsset(q.id, "a", "a-0"),
    ];
    await t.seed.assets(assets);
    expect((await t.store.field.assetsOf(p.id)).map((a) => a.id)).toEqual(["a-2", "a-1", "a-3"]);
    expect(await t.store.field.assetsOf("no-such-project")).toEqual([]);

    const devices = [
      newDevice("a-1", "PLC", "d-2"),
      newDevice("a-2", "PLC", "d-1"),
      newDevice("a-3", "plc", "d-3"),
      newDevice("a-0", "A", "d-0"),
    ];
    await t.seed.devices(devices);
    expect((await t.store.field.devicesOf(["a-1", "a-2", "a-3"])).map((d) => d.id)).toEqual([
      "d-1",
      "d-2",
      "d-3",
    ]);
    expect(await t.store.field.devicesOf([])).toEqual([]);

    await t.seed.variables([
      newVariable("d-1", "temp", "v-3"),
      newVariable("d-2", "temp", "v-2"),
      newVariable("d-2", "Temp", "v-4"),
      newVariable("d-1", "caudal", "v-1"),
      newVariable("d-0", "a", "v-0"),
    ]);
    expect((await t.store.field.variablesOf(["d-1", "d-2"])).map((v) => v.id)).toEqual([
      "v-4",
      "v-1",
      "v-2",
      "v-3",
    ]);
    expect(await t.store.field.variablesOf([])).toEqual([]);
  });

  it("reads field rows back with the types they were written with (numbers, flags, JSON, bytes)", async () => {
    const p = newProject("P");
    await t.store.field.insertProject(p);
    const asset = { ...newAsset(p.id, "W"), latitude: 4.142, longitude: -73.626 };
    await t.seed.assets([asset]);
    const device = {
      ...newDevice(asset.id, "PLC"),
      host: "10.0.0.5",
      port: 502,
      slaveId: 2 ** 40,
      enabled: false,
      settings: { endpoint: "opc.tcp://x", z: [1, 2.5] },
      settingsPasswordEncrypted: Buffer.from([0, 255, 1, 128]),
    };
    await t.seed.devices([device]);
    const variable = {
      ...newVariable(device.id, "p"),
      registerAddress: 40001,
      unit: "psi",
      scaleFactor: 0.1,
      enabled: false,
      deadband: 1e-9,
    };
    await t.seed.variables([variable]);
    expect(await t.store.field.assetsOf(p.id)).toStrictEqual([asset]);
    expect(await t.store.field.devicesOf([asset.id])).toStrictEqual([device]);
    expect(await t.store.field.variablesOf([device.id])).toStrictEqual([
      {
        address: null,
        registerKind: "holding",
        wordOrder: "ABCD",
        pollIntervalMs: 1000,
        ...variable,
      },
    ]);
  });
}
