import { randomUUID } from "node:crypto";
import { afterEach, beforeEach, expect, it } from "vitest";
import type { NewMqttCredentialRow } from "../../rows.ts";
import type { ContractBackend, StoreUnderTest } from "./backend.ts";
import { at, newProject, newUser } from "./fixtures.ts";

const credential = (projectId: string, id: string, createdAt = at()): NewMqttCredentialRow => ({
  id,
  projectId,
  name: `HMI ${id}`,
  username: `hmi:${id}`,
  passwordHash: `sha256-of-${id}`,
  createdAt,
});

/** MqttCredentialStore (server/store/ports/mqtt-credential-store.ts) on every backend. */
export function mqttCredentialStoreContract(backend: ContractBackend): void {
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

  it("inserts a credential and reads it back as inserted; a second one with its user name is refused", async () => {
    const user = newUser();
    await t.store.identity.insertUser(user);
    const row = { ...credential(p, "c-1"), createdBy: user.id };
    expect(await t.store.mqttCredentials.insert(row)).toStrictEqual({ ...row, primaryHostId: null });
    const hosted = { ...credential(p, "c-2"), primaryHostId: "scada-1" };
    expect(await t.store.mqttCredentials.insert(hosted)).toStrictEqual({ ...hosted, createdBy: null });
    await expect(
      t.store.mqttCredentials.insert({ ...credential(p, "c-3"), username: "hmi:c-1" }),
    ).rejects.toThrow();
    expect((await t.store.mqttCredentials.ofProject(p)).map((c) => c.id)).toEqual(["c-1", "c-2"]);
  });

  it("lists a project's credentials oldest first, then by id; none for another project", async () => {
    await t.store.mqttCredentials.insert(credential(p, "c-3", at(2)));
    await t.store.mqttCredentials.insert(credential(p, "c-2", at(1)));
    await t.store.mqttCredentials.insert(credential(p, "c-1", at(2)));
    await t.store.mqttCredentials.insert(credential(q, "c-0", at(0)));
    expect((await t.store.mqttCredentials.ofProject(p)).map((c) => c.id)).toEqual(["c-2", "c-1", "c-3"]);
    expect(await t.store.mqttCredentials.ofProject(randomUUID())).toEqual([]);
  });

  it("deletes a credential only through its own project, and returns it; undefined otherwise", async () => {
    await t.store.mqttCredentials.insert(credential(p, "c-1"));
    expect(await t.store.mqttCredentials.delete("c-1", q)).toBeUndefined();
    expect(await t.store.mqttCredentials.delete("missing", p)).toBeUndefined();
    expect(await t.store.mqttCredentials.login("c-1")).toBeDefined();
    expect(await t.store.mqttCredentials.delete("c-1", p)).toStrictEqual({
      ...credential(p, "c-1"),
      createdBy: null,
      primaryHostId: null,
    });
    expect(await t.store.mqttCredentials.delete("c-1", p)).toBeUndefined();
    expect(await t.store.mqttCredentials.ofProject(p)).toEqual([]);
  });

  it("answers a login with the project, password hash and primary host id; undefined for an unknown id", async () => {
    await t.store.mqttCredentials.insert(credential(p, "c-1"));
    await t.store.mqttCredentials.insert({ ...credential(p, "c-2"), primaryHostId: "scada-1" });
    expect(await t.store.mqttCredentials.login("c-1")).toStrictEqual({
      projectId: p,
      passwordHash: "sha256-of-c-1",
      primaryHostId: null,
    });
    expect(await t.store.mqttCredentials.login("c-2")).toStrictEqual({
      projectId: p,
      passwordHash: "sha256-of-c-2",
      primaryHostId: "scada-1",
    });
    expect(await t.store.mqttCredentials.login("missing")).toBeUndefined();
  });

  it("reads and updates a credential only through its own project", async () => {
    await t.store.mqttCredentials.insert(credential(p, "c-1"));
    expect(await t.store.mqttCredentials.get("c-1", q)).toBeUndefined();
    expect(await t.store.mqttCredentials.get("c-1", p)).toStrictEqual({
      ...credential(p, "c-1"),
      createdBy: null,
      primaryHostId: null,
    });
    const patch = { name: "Ignition", primaryHostId: "scada-1" };
    expect(await t.store.mqttCredentials.update("c-1", q, patch)).toBeUndefined();
    expect(await t.store.mqttCredentials.update("missing", p, patch)).toBeUndefined();
    const updated = { ...credential(p, "c-1"), createdBy: null, ...patch };
    expect(await t.store.mqttCredentials.update("c-1", p, patch)).toStrictEqual(updated);
    expect(await t.store.mqttCredentials.get("c-1", p)).toStrictEqual(updated);
    expect(
      await t.store.mqttCredentials.update("c-1", p, { name: "Ignition", primaryHostId: null }),
    ).toStrictEqual({
      ...updated,
      primaryHostId: null,
    });
  });

  it("names the other projects that claim a host id, as primary host or on a login, each once", async () => {
    const r = (await t.store.field.insertProject(newProject("R", { sparkplugPrimaryHostId: "scada-1" }))).id;
    await t.store.mqttCredentials.insert({ ...credential(q, "c-1"), primaryHostId: "scada-1" });
    await t.store.mqttCredentials.insert({ ...credential(q, "c-2"), primaryHostId: "scada-1" });
    await t.store.mqttCredentials.insert({ ...credential(r, "c-3"), primaryHostId: "scada-1" });
    await t.store.mqttCredentials.insert({ ...credential(p, "c-4"), primaryHostId: "scada-1" });
    await t.store.mqttCredentials.insert({ ...credential(p, "c-5"), primaryHostId: "scada-2" });
    expect(await t.store.mqttCredentials.hostIdClaimedBy("scada-1", p)).toEqual([q, r].sort());
    expect(await t.store.mqttCredentials.hostIdClaimedBy("scada-1", r)).toEqual([p, q].sort());
    expect(await t.store.mqttCredentials.hostIdClaimedBy("scada-2", p)).toEqual([]);
    expect(await t.store.mqttCredentials.hostIdClaimedBy("SCADA-1", randomUUID())).toEqual([]);
    // Inside a transaction too (PostgreSQL locks the id there).
    expect(await t.store.transaction((tx) => tx.mqttCredentials.hostIdClaimedBy("scada-2", q))).toEqual([p]);
  });

  it("removes a project's credentials with the project", async () => {
    await t.store.mqttCredentials.insert(credential(p, "c-1"));
    await t.store.mqttCredentials.insert(credential(q, "c-2"));
    await t.store.field.deleteProject(p);
    expect(await t.store.mqttCredentials.login("c-1")).toBeUndefined();
    expect((await t.store.mqttCredentials.ofProject(q)).map((c) => c.id)).toEqual(["c-2"]);
  });
}
