import { randomUUID } from "node:crypto";
import { afterEach, beforeEach, expect, it } from "vitest";
import type { DeploymentRow } from "../../rows.ts";
import type { ContractBackend, StoreUnderTest } from "./backend.ts";

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;
const at = (ms: number) => new Date(1_750_000_000_000 + ms);

/**
 * AgentStore (server/store/ports/agent-store.ts) on every backend: its orderings, the one-time
 * claim of an enrollment code, which deployments an applied one supersedes, how status reports
 * combine, and the deployment target's hold on the project's next version.
 */
export function agentStoreContract(backend: ContractBackend): void {
  let t: StoreUnderTest;
  beforeEach(async () => {
    t = await backend.open();
  });
  afterEach(async () => {
    await t.close();
  });

  const project = async (name = `p-${randomUUID()}`) =>
    (
      await t.store.field.insertProject({
        id: randomUUID(),
        name,
        slug: name,
        createdAt: at(0),
        updatedAt: at(0),
      })
    ).id;
  const code = async (projectId: string, codeId: string, createdAt = at(0)) => {
    await t.store.agents.insertEnrollmentCode({
      id: codeId,
      projectId,
      codeHash: `hash-${codeId}`,
      purpose: "manual",
      createdAt,
      expiresAt: at(3_600_000),
    });
    return codeId;
  };
  const deployment = (projectId: string, version: number, status: DeploymentRow["status"] = "pending") =>
    t.store.agents.insertDeployment({
      id: randomUUID(),
      projectId,
      version,
      configHash: `h${version}`,
      config: { project_id: projectId, devices: [], alert_rules: [] },
      status,
      error: null,
      createdAt: at(version),
      updatedAt: at(version),
    });

  it("token hash: undefined without the project, null before one is issued, then the hash", async () => {
    const p = await project();
    expect(await t.store.agents.tokenHash(randomUUID())).toBeUndefined();
    expect(await t.store.agents.tokenHash(p)).toBeNull();
    await t.store.agents.setTokenHash(p, "abc", at(5));
    expect(await t.store.agents.tokenHash(p)).toBe("abc");
    expect((await t.store.field.project(p))?.updatedAt).toEqual(at(5));
  });

  it("lists a project's codes newest first, then by id descending", async () => {
    const p = await project();
    const other = await project();
    await code(p, id(1), at(10));
    await code(p, id(3), at(20));
    await code(p, id(2), at(20));
    await code(other, id(4), at(30));
    expect((await t.store.agents.enrollmentCodesOf(p)).map((c) => c.id)).toEqual([id(3), id(2), id(1)]);
    expect((await t.store.agents.enrollmentCodeByHash(`hash-${id(4)}`))?.projectId).toBe(other);
  });

  it("a code is claimed once: of two transactions claiming it, exactly one wins", async () => {
    const p = await project();
    const c = await code(p, id(1));
    const claims = await Promise.all(
      [at(1), at(2)].map((when) => t.store.transaction((tx) => tx.agents.claimEnrollmentCode(c, when))),
    );
    expect(claims.sort()).toEqual([false, true]);
    expect((await t.store.agents.enrollmentCode(c))?.usedAt).toEqual(at(1));
  });

  it("a revoked code cannot be claimed; revoking twice changes nothing the second time", async () => {
    const p = await project();
    const c = await code(p, id(1));
    expect(await t.store.agents.revokeEnrollmentCode(c, at(1))).toBe(true);
    expect(await t.store.agents.revokeEnrollmentCode(c, at(2))).toBe(false);
    expect(await t.store.agents.claimEnrollmentCode(c, at(3))).toBe(false);
    expect(await t.store.agents.enrollmentCode(c)).toMatchObject({ revokedAt: at(1), usedAt: null });
  });

  it("builds the configuration source from enabled rows of the project only, by created_at then id", async () => {
    const p = await project();
    const other = await project();
    const asset = async (projectId: string) =>
      (
        await t.store.field.insertAsset({
          id: randomUUID(),
          projectId,
          name: "A",
          assetType: "well",
          createdAt: at(0),
          updatedAt: at(0),
        })
      ).id;
    const [a1, a2, foreign] = [await asset(p), await asset(p), await asset(other)];
    const device = async (assetId: string, deviceId: string, createdAt: Date, enabled = true) =>
      t.store.field.insertDevice({
        id: deviceId,
        assetId,
        name: "d",
        protocol: "modbus_tcp",
        enabled,
        createdAt,
        updatedAt: at(0),
      });
    await device(a2, id(12), at(2));
    await device(a1, id(11), at(2));
    await device(a1, id(10), at(3));
    await device(a1, id(13), at(1), false);
    await device(foreign, id(14), at(0));
    const variable = (deviceId: string, variableId: string, createdAt: Date, enabled = true) =>
      t.store.field.insertVariable({
        id: variableId,
        deviceId,
        alias: `v${variableId.slice(-2)}`,
        dataType: "float32",
        enabled,
        createdAt,
        updatedAt: at(0),
      });
    await variable(id(10), id(22), at(5));
    await variable(id(11), id(21), at(5));
    await variable(id(12), id(20), at(6));
    await variable(id(12), id(23), at(4), false);
    await variable(id(13), id(24), at(1));
    const rule = (projectId: string, ruleId: string, createdAt: Date, isEnabled = true) =>
      t.store.alarms.insertRule({
        id: ruleId,
        projectId,
        name: "r",
        variableAlias: "x",
        condition: "gt",
        threshold: 1,
        severity: "warning",
        isEnabled,
        createdAt,
        updatedAt: at(0),
      });
    await rule(p, id(31), at(7));
    await rule(p, id(30), at(7));
    await rule(p, id(32), at(6), false);
    await rule(other, id(33), at(1));

    const source = await t.store.agents.configSource(p);
    expect(source.devices.map((d) => d.id)).toEqual([id(11), id(12), id(10)]);
    expect(source.variables.map((v) => v.id)).toEqual([id(21), id(22), id(20)]);
    expect(source.alertRules.map((r) => r.id)).toEqual([id(30), id(31)]);
    expect((await t.store.agents.enabledVariables([id(12), id(10)])).map((v) => v.id)).toEqual([
      id(22),
      id(20),
    ]);
    expect(await t.store.agents.enabledVariables([])).toEqual([]);
    expect(await t.store.agents.configSource(randomUUID())).toEqual({
      devices: [],
      variables: [],
      alertRules: [],
    });
  });

  it("deployments: highest version first, the newest of every project, and only the project's by id", async () => {
    const p = await project();
    const other = await project();
    expect(await t.store.agents.latestDeployment(p)).toBeUndefined();
    await deployment(p, 1);
    const newest = await deployment(p, 2);
    const otherNewest = await deployment(other, 1);
    expect((await t.store.agents.deploymentsOf(p)).map((d) => d.version)).toEqual([2, 1]);
    expect(await t.store.agents.latestDeployment(p)).toEqual(newest);
    expect((await t.store.agents.latestDeployments()).map((d) => d.id).sort()).toEqual(
      [newest.id, otherNewest.id].sort(),
    );
    expect(await t.store.agents.deploymentOf(other, newest.id)).toBeUndefined();
    expect(await t.store.agents.deploymentOf(p, newest.id)).toEqual(newest);
    expect(await t.store.agents.deploymentTarget(p)).toEqual({ autoDeploy: true });
    await t.store.field.updateProject(other, { autoDeploy: false });
    expect(await t.store.agents.deploymentTarget(other)).toEqual({ autoDeploy: false });
    expect(await t.store.agents.autoDeployProjectIds()).toEqual([p]);
    expect(await t.store.agents.deploymentTarget(randomUUID())).toBeUndefined();
  });

  it("an applied version fails the project's older pending ones only", async () => {
    const p = await project();
    const other = await project();
    const v1 = await deployment(p, 1);
    const v2 = await deployment(p, 2, "applied");
    const v3 = await deployment(p, 3);
    const v4 = await deployment(p, 4);
    const foreign = await deployment(other, 1);
    await t.store.agents.setDeploymentStatus(v4.id, "applied", null, at(50));
    await t.store.agents.failPendingBefore(p, 4, "superseded by version 4", at(50));
    const byId = new Map((await t.store.agents.deploymentsOf(p)).map((d) => [d.id, d]));
    expect(byId.get(v1.id)).toMatchObject({
      status: "failed",
      error: "superseded by version 4",
      updatedAt: at(50),
    });
    expect(byId.get(v2.id)).toMatchObject({ status: "applied", error: null, updatedAt: at(2) });
    expect(byId.get(v3.id)).toMatchObject({ status: "failed", error: "superseded by version 4" });
    expect(byId.get(v4.id)).toMatchObject({ status: "applied", updatedAt: at(50) });
    expect((await t.store.agents.deploymentsOf(other))[0]).toEqual(foreign);
  });

  it("status: offline before any report changes nothing; online keeps the last heartbeat; a heartbeat clears offline", async () => {
    const p = await project();
    await t.store.agents.markOffline(p, at(1));
    expect(await t.store.agents.status(p)).toBeUndefined();
    await t.store.agents.markOnline(p, at(2));
    expect(await t.store.agents.status(p)).toEqual({
      projectId: p,
      lastSeen: at(2),
      heartbeat: null,
      offlineAt: null,
    });
    await t.store.agents.markSeen(p, at(3), { uptime_seconds: 9 });
    await t.store.agents.markOffline(p, at(4));
    expect(await t.store.agents.status(p)).toEqual({
      projectId: p,
      lastSeen: at(3),
      heartbeat: { uptime_seconds: 9 },
      offlineAt: at(4),
    });
    await t.store.agents.markOnline(p, at(5));
    expect(await t.store.agents.status(p)).toEqual({
      projectId: p,
      lastSeen: at(5),
      heartbeat: { uptime_seconds: 9 },
      offlineAt: null,
    });
    await t.store.agents.setHealthReport(p, { received_at: at(5).toISOString() });
    expect((await t.store.field.project(p))?.lastHealthReport).toEqual({ received_at: at(5).toISOString() });
  });

  it("logs: the levels asked for, newest timestamp first then newest created_at, at most limit", async () => {
    const p = await project();
    const other = await project();
    const entry = (n: number, level: "debug" | "info" | "warn" | "error", ts: number, created: number) => ({
      id: id(n),
      projectId: p,
      level,
      category: "agent",
      message: `m${n}`,
      timestamp: at(ts),
      createdAt: at(created),
    });
    await t.store.agents.appendLogs([
      entry(1, "info", 10, 100),
      entry(2, "error", 30, 100),
      entry(3, "debug", 40, 100),
      entry(4, "warn", 20, 101),
      entry(5, "warn", 20, 102),
      { ...entry(6, "error", 50, 100), projectId: other },
    ]);
    expect((await t.store.agents.logsOf(p, ["info", "warn", "error"], 10)).map((l) => l.message)).toEqual([
      "m2",
      "m5",
      "m4",
      "m1",
    ]);
    expect((await t.store.agents.logsOf(p, ["warn", "error"], 2)).map((l) => l.message)).toEqual([
      "m2",
      "m5",
    ]);
  });

  it("logs land all together or not at all", async () => {
    const p = await project();
    const row = {
      projectId: p,
      level: "info" as const,
      category: "agent",
      message: "m",
      timestamp: at(1),
      createdAt: at(1),
    };
    // The second row's project does not exist: the foreign key refuses it, and the first goes with it.
    await expect(
      t.store.agents.appendLogs([
        { ...row, id: id(1) },
        { ...row, id: id(2), projectId: randomUUID() },
      ]),
    ).rejects.toThrow();
    expect(await t.store.agents.logsOf(p, ["info"], 10)).toEqual([]);
    // Inside a store transaction they commit with it.
    await t.store.transaction(async (tx) => {
      await tx.agents.appendLogs([{ ...row, id: id(3) }]);
      await tx.agents.markOnline(p, at(2));
    });
    expect((await t.store.agents.logsOf(p, ["info"], 10)).map((l) => l.id)).toEqual([id(3)]);
  });

  it("records a telemetry batch once per project, agent and seq; a rolled-back record is forgotten", async () => {
    const [p, q] = [await project(), await project()];
    const agent = randomUUID();
    expect(await t.store.agents.recordBatch(p, agent, 1, 10, at(1))).toBe(true);
    expect(await t.store.agents.recordBatch(p, agent, 1, 99, at(2))).toBe(false);
    expect(await t.store.agents.recordBatch(p, agent, 2, 10, at(3))).toBe(true);
    expect(await t.store.agents.recordBatch(p, randomUUID(), 1, 10, at(4))).toBe(true);
    expect(await t.store.agents.recordBatch(q, agent, 1, 10, at(5))).toBe(true);
    await expect(
      t.store.transaction(async (tx) => {
        expect(await tx.agents.recordBatch(p, agent, 3, 10, at(6))).toBe(true);
        throw new Error("rolled back");
      }),
    ).rejects.toThrow("rolled back");
    expect(await t.store.agents.recordBatch(p, agent, 3, 10, at(7))).toBe(true);
  });

  it("deletes batch records whose last batch was received before a time, at most `limit` at a time", async () => {
    const p = await project();
    const agent = randomUUID();
    // Received at 1..3 s and 5 s (after whatever other tests recorded, at times up to 7 ms). A
    // record may hold a run of batches (SQLite: 1–3 in one, extended as each came), whose last
    // batch's time is the record's.
    for (const seq of [1, 2, 3, 5])
      expect(await t.store.agents.recordBatch(p, agent, seq, 10, at(seq * 1000))).toBe(true);
    // Before 3.5 s: seqs 1-3, and the other tests' records (fewer than 20 of them).
    let deleted = 0;
    for (let n = await t.store.agents.deleteBatchRecordsBefore(at(3500), 2); n > 0; ) {
      expect(n).toBeLessThanOrEqual(2);
      deleted += n;
      n = n < 2 ? 0 : await t.store.agents.deleteBatchRecordsBefore(at(3500), 2);
    }
    expect(deleted).toBeGreaterThanOrEqual(1);
    expect(await t.store.agents.deleteBatchRecordsBefore(at(3500), 100)).toBe(0);
    // A deleted record is forgotten; the newer one still answers.
    for (const seq of [1, 2, 3])
      expect(await t.store.agents.recordBatch(p, agent, seq, 10, at(6000))).toBe(true);
    expect(await t.store.agents.recordBatch(p, agent, 5, 10, at(6000))).toBe(false);
  });

  it("keeps a record while its agent's batches extend it", async () => {
    const p = await project();
    const agent = randomUUID();
    await t.store.agents.recordBatch(p, agent, 1, 10, at(1000));
    await t.store.agents.recordBatch(p, agent, 2, 10, at(9000));
    // On PostgreSQL seq 1 is a record of its own and goes; on SQLite it is in the run 1–2, kept.
    await t.store.agents.deleteBatchRecordsBefore(at(5000), 100);
    expect(await t.store.agents.recordBatch(p, agent, 2, 10, at(9500))).toBe(false);
  });

  it("holds off other deployments of the project while a transaction picks the next version", async () => {
    const p = await project();
    await Promise.all(Array.from({ length: 4 }, () => t.store.probe()));
    await Promise.all(
      Array.from({ length: 4 }, () =>
        t.store.transaction(async (tx) => {
          if (!(await tx.agents.deploymentTarget(p))) return;
          const latest = await tx.agents.latestDeployment(p);
          await tx.agents.insertDeployment({
            id: randomUUID(),
            projectId: p,
            version: (latest?.version ?? 0) + 1,
            configHash: "h",
            config: {},
            status: "pending",
            error: null,
            createdAt: at(0),
            updatedAt: at(0),
          });
        }),
      ),
    );
    expect((await t.store.agents.deploymentsOf(p)).map((d) => d.version)).toEqual([4, 3, 2, 1]);
  });
}
