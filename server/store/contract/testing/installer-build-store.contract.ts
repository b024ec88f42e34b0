import { randomUUID } from "node:crypto";
import { afterEach, beforeEach, expect, it } from "vitest";
import type { NewInstallerBuildRow } from "../../rows.ts";
import type { ContractBackend, StoreUnderTest } from "./backend.ts";
import { at, newProject } from "./fixtures.ts";

const build = (projectId: string, more: Partial<NewInstallerBuildRow> = {}): NewInstallerBuildRow => ({
  id: randomUUID(),
  projectId,
  status: "queued",
  rebuild: false,
  serverUrl: "https://caudal.example",
  createdAt: at(),
  ...more,
});

/** A build that succeeded from these inputs, its MSI kept. */
const built = (projectId: string, n: number, more: Partial<NewInstallerBuildRow> = {}) =>
  build(projectId, {
    status: "succeeded",
    agentVersion: "1.2.3",
    inputsSha256: "sha-a",
    file: `msi-${n}.msi`,
    createdAt: at(n),
    finishedAt: at(n),
    ...more,
  });

/** InstallerBuildStore (server/store/ports/installer-build-store.ts) on every backend. */
export function installerBuildStoreContract(backend: ContractBackend): void {
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

  it("inserts a build with the schema's defaults and reads it back; undefined when missing", async () => {
    const row = build(p);
    const stored = await t.store.installerBuilds.insert(row);
    expect(stored).toStrictEqual({
      ...row,
      agentVersion: null,
      inputsSha256: null,
      enrollmentCodeId: null,
      file: null,
      bytes: null,
      sha256: null,
      log: "",
      requestedBy: null,
      startedAt: null,
      finishedAt: null,
    });
    expect(await t.store.installerBuilds.get(row.id)).toStrictEqual(stored);
    expect(await t.store.installerBuilds.get(randomUUID())).toBeUndefined();
  });

  it("holds one queued or running build per project; finds it, the newest and the next to run", async () => {
    expect(await t.store.installerBuilds.activeOf(p)).toBeUndefined();
    expect(await t.store.installerBuilds.latestOf(p)).toBeUndefined();
    expect(await t.store.installerBuilds.nextQueued()).toBeUndefined();
    const old = await t.store.installerBuilds.insert(build(p, { status: "failed", createdAt: at(1) }));
    const running = await t.store.installerBuilds.insert(build(p, { status: "running", createdAt: at(2) }));
    await expect(t.store.installerBuilds.insert(build(p, { createdAt: at(3) }))).rejects.toThrow();
    const queuedQ = await t.store.installerBuilds.insert(build(q, { createdAt: at(4) }));
    expect(await t.store.installerBuilds.activeOf(p)).toStrictEqual(running);
    expect(await t.store.installerBuilds.latestOf(p)).toStrictEqual(running);
    expect(await t.store.installerBuilds.nextQueued()).toStrictEqual(queuedQ);
    expect(await t.store.installerBuilds.update(running.id, { status: "succeeded", finishedAt: at(5) })).toBe(
      true,
    );
    expect(await t.store.installerBuilds.activeOf(p)).toBeUndefined();
    const queuedP = await t.store.installerBuilds.insert(build(p, { createdAt: at(3) }));
    expect(await t.store.installerBuilds.nextQueued()).toStrictEqual(queuedP);
    expect((await t.store.installerBuilds.idsWithStatus("queued")).sort()).toEqual(
      [queuedP.id, queuedQ.id].sort(),
    );
    expect(await t.store.installerBuilds.idsWithStatus("failed")).toEqual([old.id]);
  });

  it("queues one build however many snapshot transactions ask at once; the others find it", async () => {
    // requestInstallerBuild's check-then-insert: on PostgreSQL the losers' inserts hit the
    // one-active index and their work runs again (snapshot), now seeing the winner's build.
    const ids = await Promise.all(
      Array.from({ length: 4 }, () =>
        t.store.transaction(
          async (tx) => {
            const active = await tx.installerBuilds.activeOf(p);
            return active ? active.id : (await tx.installerBuilds.insert(build(p))).id;
          },
          { snapshot: true },
        ),
      ),
    );
    expect(new Set(ids).size).toBe(1);
    expect((await t.store.installerBuilds.activeOf(p))?.id).toBe(ids[0]);
  });

  it("updates the given fields; false for a build that no longer exists", async () => {
    const row = await t.store.installerBuilds.insert(build(p));
    const change = {
      status: "succeeded" as const,
      file: "a.msi",
      bytes: 2 ** 35,
      sha256: "ff".repeat(32),
      startedAt: at(1),
      finishedAt: at(2),
    };
    expect(await t.store.installerBuilds.update(row.id, change)).toBe(true);
    expect(await t.store.installerBuilds.get(row.id)).toStrictEqual({ ...row, ...change });
    expect(await t.store.installerBuilds.update(randomUUID(), { status: "failed" })).toBe(false);
    await t.store.field.deleteProject(p);
    expect(await t.store.installerBuilds.update(row.id, { status: "failed" })).toBe(false);
  });

  it("appends to the log, keeping its last characters (code points, not UTF-16 units)", async () => {
    const row = await t.store.installerBuilds.insert(build(p));
    const max = 6;
    const parts = ["ab", "c€", "🛢️d", "é\n", "🛢🛢"];
    let log = "";
    for (const part of parts) {
      await t.store.installerBuilds.appendLog(row.id, part, max);
      log = [...(log + part)].slice(-max).join("");
      expect((await t.store.installerBuilds.get(row.id))?.log).toBe(log);
    }
    // The tail begins inside "🛢️": its variation selector is a code point of its own.
    expect(log).toBe("\u{FE0F}d\u00e9\n🛢🛢");
    await t.store.installerBuilds.appendLog(randomUUID(), "nobody", max);
  });

  it("finds the newest kept build of the same inputs; releases the files a newer build replaced", async () => {
    const first = await t.store.installerBuilds.insert(built(p, 1));
    const second = await t.store.installerBuilds.insert(built(p, 2));
    await t.store.installerBuilds.insert(built(p, 3, { inputsSha256: "sha-b" }));
    await t.store.installerBuilds.insert(built(p, 4, { agentVersion: "1.2.4" }));
    await t.store.installerBuilds.insert(built(p, 5, { status: "failed" }));
    await t.store.installerBuilds.insert(built(q, 6));
    const inputs = { agentVersion: "1.2.3", inputsSha256: "sha-a" };
    expect(await t.store.installerBuilds.latestBuilt(p, inputs)).toStrictEqual(second);
    expect(
      await t.store.installerBuilds.latestBuilt(p, { ...inputs, inputsSha256: "sha-c" }),
    ).toBeUndefined();
    expect((await t.store.installerBuilds.keptFiles()).sort()).toEqual([
      "msi-1.msi",
      "msi-2.msi",
      "msi-3.msi",
      "msi-4.msi",
      "msi-5.msi",
      "msi-6.msi",
    ]);
    const released = await t.store.installerBuilds.releaseReplaced(p, first.id);
    expect(released).toHaveLength(3);
    expect(released).toContain(second.id);
    expect(await t.store.installerBuilds.latestBuilt(p, inputs)).toStrictEqual(first);
    expect((await t.store.installerBuilds.keptFiles()).sort()).toEqual([
      "msi-1.msi",
      "msi-5.msi",
      "msi-6.msi",
    ]);
    expect(await t.store.installerBuilds.releaseReplaced(p, first.id)).toEqual([]);
  });
}
