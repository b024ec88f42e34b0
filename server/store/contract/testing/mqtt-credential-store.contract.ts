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
    await t.seed.users([user]);
    const row = { ...credential(p, "c-1"), createdBy: user.id };
    expect(await t.store.mqttCredentials.insert(row)).toStrictEqual(row);
    expect(await t.store.mqttCredentials.insert(credential(p, "c-2"))).toStrictEqual({
      ...credential(p, "c-2"),
      createdBy: null,
    });
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
    });
    expect(await t.store.mqttCredentials.delete("c-1", p)).toBeUndefined();
    expect(await t.store.mqttCredentials.ofProject(p)).toEqual([]);
  });

  it("answers a login with the project and password hash; undefined for an unknown id", async () => {
    await t.store.mqttCredentials.insert(credential(p, "c-1"));
    expect(await t.store.mqttCredentials.login("c-1")).toStrictEqual({
      projectId: p,
      passwordHash: "sha256-of-c-1",
    });
    expect(await t.store.mqttCredentials.login("missing")).toBeUndefined();
  });

  it("removes a project's credentials with the project", async () => {
    await t.store.mqttCredentials.insert(credential(p, "c-1"));
    await t.store.mqttCredentials.insert(credential(q, "c-2"));
    await t.store.field.deleteProject(p);
    expect(await t.store.mqttCredentials.login("c-1")).toBeUndefined();
    expect((await t.store.mqttCredentials.ofProject(q)).map((c) => c.id)).toEqual(["c-2"]);
  });
}
