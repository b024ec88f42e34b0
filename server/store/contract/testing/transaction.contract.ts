import { afterEach, beforeEach, expect, it } from "vitest";
import { expectIntactChain, storedChain } from "./audit-store.contract.ts";
import type { ContractBackend, StoreUnderTest } from "./backend.ts";
import { auditEntry, newProject } from "./fixtures.ts";

/** Store.transaction and Store.probe: all or nothing, on every backend. */
export function transactionContract(backend: ContractBackend): void {
  let t: StoreUnderTest;
  beforeEach(async () => {
    t = await backend.open();
  });
  afterEach(async () => {
    await t.close();
  });

  const names = async () => (await t.store.field.projects()).map((p) => p.name);

  it("commits everything the work wrote and returns its value", async () => {
    const value = await t.store.transaction(async (tx) => {
      await tx.field.insertProject(newProject("a"));
      await tx.audit.append(auditEntry(1));
      await tx.field.insertProject(newProject("b"));
      await tx.audit.append(auditEntry(2));
      return 42;
    });
    expect(value).toBe(42);
    expect(await names()).toEqual(["a", "b"]);
    expect((await storedChain(t.store)).map((e) => e.entityId)).toEqual(["e-1", "e-2"]);
  });

  it("rolls back everything when the work throws, and passes the error on", async () => {
    await t.store.field.insertProject(newProject("kept"));
    const failed = t.store.transaction(async (tx) => {
      await tx.field.insertProject(newProject("a"));
      await tx.audit.append(auditEntry(1));
      throw new Error("refused");
    });
    await expect(failed).rejects.toThrow("refused");
    expect(await names()).toEqual(["kept"]);
    expect(await t.store.audit.highestIssuedSeq()).toBe(0);
  });

  it("rolls back the earlier writes when a later one is refused by the database", async () => {
    const failed = t.store.transaction(async (tx) => {
      await tx.field.insertProject(newProject("a", { slug: "taken" }));
      await tx.audit.append(auditEntry(1));
      await tx.field.insertProject(newProject("b", { slug: "taken" }));
    });
    await expect(failed).rejects.toThrow();
    expect(await names()).toEqual([]);
    expect(await t.store.audit.highestIssuedSeq()).toBe(0);
  });

  it("sees its own writes, through its ports and the store's own alike", async () => {
    const p = newProject("a");
    await t.store.transaction(async (tx) => {
      await tx.field.insertProject(p);
      expect(await tx.field.project(p.id)).toMatchObject({ name: "a" });
      expect(await t.store.field.project(p.id)).toMatchObject({ name: "a" });
      await t.store.audit.append(auditEntry(1));
      await tx.audit.append(auditEntry(2));
    });
    expectIntactChain(await storedChain(t.store));
    expect(await t.store.audit.highestIssuedSeq()).toBe(2);
  });

  it("refuses a transaction opened from inside another", async () => {
    const nested = t.store.transaction(async () => t.store.transaction(async () => "never"));
    await expect(nested).rejects.toThrow("a transaction is already open here");
  });

  it("runs concurrent transactions each whole, their audit entries chained", async () => {
    await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        t.store.transaction(async (tx) => {
          await tx.audit.append(auditEntry(2 * i));
          await tx.field.insertProject(newProject(`p${i}`));
          await tx.audit.append(auditEntry(2 * i + 1));
        }),
      ),
    );
    const chain = await storedChain(t.store);
    expectIntactChain(chain);
    // Each transaction's two entries are adjacent: none landed inside another's.
    const pairs = chain.map((e) => Math.floor(Number(e.entityId.slice(2)) / 2));
    for (let i = 0; i < pairs.length; i += 2) expect(pairs[i]).toBe(pairs[i + 1]);
    expect(await names()).toHaveLength(8);
  });

  it("answers the health probe with a round trip", async () => {
    await expect(t.store.probe()).resolves.toBeUndefined();
  });
}
