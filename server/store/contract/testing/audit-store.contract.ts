import { afterEach, beforeEach, expect, it } from "vitest";
import { auditHash, auditHashInput } from "../../audit-chain.ts";
import type { StoredAuditEntry } from "../../ports/audit-store.ts";
import type { ContractBackend, ContractStore, StoreUnderTest } from "./backend.ts";
import { at, auditEntry } from "./fixtures.ts";

/** The whole chain as stored, in seq order. */
export async function storedChain(store: ContractStore): Promise<StoredAuditEntry[]> {
  return store.audit.chainPage(0, await store.audit.highestIssuedSeq(), 1_000_000);
}

/** Checks the chain as the verifier does (services/audit/verify-audit.ts): links, hashes, no gaps. */
export function expectIntactChain(chain: StoredAuditEntry[]): void {
  let prevHash = "";
  chain.forEach((e, i) => {
    expect(e.seq).toBe(i + 1);
    expect(e.prevHash).toBe(prevHash);
    const parse = (text: string | null) => (text === null ? null : JSON.parse(text));
    expect(e.hash).toBe(auditHash(auditHashInput({ ...e, before: parse(e.before), after: parse(e.after) })));
    prevHash = e.hash;
  });
}

/** AuditStore (server/store/ports/audit-store.ts): the same chain and answers on every backend. */
export function auditStoreContract(backend: ContractBackend): void {
  let t: StoreUnderTest;
  beforeEach(async () => {
    t = await backend.open();
  });
  afterEach(async () => {
    await t.close();
  });

  it("starts empty: no seq issued, no page, no entries", async () => {
    expect(await t.store.audit.highestIssuedSeq()).toBe(0);
    expect(await t.store.audit.chainPage(0, 10, 10)).toEqual([]);
    expect(await t.store.audit.list({ limit: 10 })).toEqual([]);
  });

  it("chains each entry to the one before, stores its JSON as JSON.stringify wrote it, from seq 1", async () => {
    const entries = [
      auditEntry(1, { userId: "u-1", projectId: "p-1", action: "create", before: null }),
      auditEntry(2, { before: undefined, after: undefined, action: "delete" }),
      auditEntry(3),
    ];
    for (const e of entries) await t.store.audit.append(e);
    const chain = await storedChain(t.store);
    expectIntactChain(chain);
    expect(
      chain.map(({ seq, at, userId, projectId, entity, entityId, action, before, after }) => ({
        seq,
        at,
        userId,
        projectId,
        entity,
        entityId,
        action,
        before,
        after,
      })),
    ).toEqual([
      {
        seq: 1,
        at: at(1000),
        userId: "u-1",
        projectId: "p-1",
        entity: "project",
        entityId: "e-1",
        action: "create",
        before: null,
        after: JSON.stringify(entries[0]?.after),
      },
      {
        seq: 2,
        at: at(2000),
        userId: null,
        projectId: null,
        entity: "project",
        entityId: "e-2",
        action: "delete",
        before: null,
        after: null,
      },
      {
        seq: 3,
        at: at(3000),
        userId: null,
        projectId: null,
        entity: "project",
        entityId: "e-3",
        action: "update",
        before: JSON.stringify(entries[2]?.before),
        after: JSON.stringify(entries[2]?.after),
      },
    ]);
    expect(await t.store.audit.highestIssuedSeq()).toBe(3);
  });

  it("pages the chain by seq: after (exclusive), up to (inclusive), at most limit", async () => {
    for (let n = 1; n <= 7; n++) await t.store.audit.append(auditEntry(n));
    const seqs = async (after: number, upTo: number, limit: number) =>
      (await t.store.audit.chainPage(after, upTo, limit)).map((e) => e.seq);
    expect(await seqs(0, 7, 3)).toEqual([1, 2, 3]);
    expect(await seqs(3, 7, 3)).toEqual([4, 5, 6]);
    expect(await seqs(6, 7, 3)).toEqual([7]);
    expect(await seqs(2, 5, 100)).toEqual([3, 4, 5]);
    expect(await seqs(7, 9, 100)).toEqual([]);
  });

  it("lists newest first, by every filter, up to the limit", async () => {
    const spec: [number, string | null, string, string][] = [
      [1, "p-1", "project", "x"],
      [2, "p-2", "asset", "y"],
      [3, null, "user", "z"],
      [4, "p-1", "asset", "y"],
      [5, "p-2", "project", "x"],
      [6, "p-1", "asset", "x"],
    ];
    for (const [n, projectId, entity, entityId] of spec) {
      await t.store.audit.append(auditEntry(n, { projectId, entity, entityId }));
    }
    const seqs = async (filter: Parameters<ContractStore["audit"]["list"]>[0]) =>
      (await t.store.audit.list(filter)).map((r) => r.seq);
    expect(await seqs({ limit: 100 })).toEqual([6, 5, 4, 3, 2, 1]);
    expect(await seqs({ limit: 2 })).toEqual([6, 5]);
    expect(await seqs({ limit: 100, projectIds: ["p-1"] })).toEqual([6, 4, 1]);
    expect(await seqs({ limit: 100, projectIds: ["p-1", "p-2"] })).toEqual([6, 5, 4, 2, 1]);
    expect(await seqs({ limit: 100, projectIds: [] })).toEqual([]);
    expect(await seqs({ limit: 100, from: at(2000), to: at(5000) })).toEqual([4, 3, 2]);
    expect(await seqs({ limit: 100, entity: "asset" })).toEqual([6, 4, 2]);
    expect(await seqs({ limit: 100, entity: "asset", entityId: "y" })).toEqual([4, 2]);
    expect(await seqs({ limit: 2, beforeSeq: 5 })).toEqual([4, 3]);
    const [newest] = await t.store.audit.list({ limit: 1 });
    const [stored] = await t.store.audit.chainPage(5, 6, 1);
    expect(newest).toStrictEqual({
      ...stored,
      before: JSON.parse(stored?.before ?? "null"),
      after: JSON.parse(stored?.after ?? "null"),
    });
  });

  it("keeps the chain intact and gap-free under concurrent appends", async () => {
    await Promise.all(Array.from({ length: 25 }, (_, i) => t.store.audit.append(auditEntry(i + 1))));
    const chain = await storedChain(t.store);
    expect(chain).toHaveLength(25);
    expectIntactChain(chain);
    expect(new Set(chain.map((e) => e.entityId)).size).toBe(25);
  });

  it("spends no seq on an append rolled back with its transaction", async () => {
    await t.store.audit.append(auditEntry(1));
    await expect(
      t.store.transaction(async (tx) => {
        await tx.audit.append(auditEntry(2));
        throw new Error("refused");
      }),
    ).rejects.toThrow("refused");
    expect(await t.store.audit.highestIssuedSeq()).toBe(1);
    await t.store.audit.append(auditEntry(3));
    const chain = await storedChain(t.store);
    expect(chain.map((e) => e.entityId)).toEqual(["e-1", "e-3"]);
    expectIntactChain(chain);
  });
}
