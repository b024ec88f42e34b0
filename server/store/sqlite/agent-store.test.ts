import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AgentStore } from "../ports/agent-store.ts";
import type { FieldStore } from "../ports/field-store.ts";
import type { DeploymentRow } from "../rows.ts";
import { type DatabaseHandle, openDatabase } from "./client.ts";
import { alertRules } from "./schema/index.ts";
import { SqliteStore } from "./sqlite-store.ts";

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;
const at = (ms: number) => new Date(1_750_000_000_000 + ms);

/*
 * What the agent port promises beyond plain reads and writes (server/store/ports/agent-store.ts):
 * its orderings, the one-time claim of an enrollment code, which deployments an applied one
 * supersedes, and how status reports combine. Alert rules are written on the connection (their
 * port is not this one); everything checked goes through the port.
 */
describe("SqliteAgentStore, on a real database file", () => {
  let dir: string;
  let handle: DatabaseHandle;
  let store: SqliteStore;
  let agents: AgentStore;
  let field: FieldStore;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "caudal-agent-store-"));
    handle = openDatabase(join(dir, "caudal.db"));
    store = new SqliteStore(handle);
    agents = store.agents;
    field = store.field;
  });
  afterEach(() => {
    handle.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const project = async (name = `p-${randomUUID()}`) =>
    (await field.insertProject({ id: randomUUID(), name, slug: name, createdAt: at(0), updatedAt: at(0) }))
      .id;
  const code = async (projectId: string, codeId: string, createdAt = at(0)) => {
    await agents.insertEnrollmentCode({
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
    agents.insertDeployment({
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
    expect(await agents.tokenHash(randomUUID())).toBeUndefined();
    expect(await agents.tokenHash(p)).toBeNull();
    await agents.setTokenHash(p, "abc", at(5));
    expect(await agents.tokenHash(p)).toBe("abc");
    expect((await field.project(p))?.updatedAt).toEqual(at(5));
  });

  it("lists a project's codes newest first, then by id descending", async () => {
    const p = await project();
    const other = await project();
    await code(p, id(1), at(10));
    await code(p, id(3), at(20));
    await code(p, id(2), at(20));
    await code(other, id(4), at(30));
    expect((await agents.enrollmentCodesOf(p)).map((c) => c.id)).toEqual([id(3), id(2), id(1)]);
    expect((await agents.enrollmentCodeByHash(`hash-${id(4)}`))?.projectId).toBe(other);
  });

  it("a code is claimed once: of two transactions claiming it, exactly one wins", async () => {
    const p = await project();
    const c = await code(p, id(1));
    const claims = await Promise.all(
      [at(1), at(2)].map((when) => store.transaction((tx) => tx.agents.claimEnrollmentCode(c, when))),
    );
    expect(claims.sort()).toEqual([false, true]);
    expect((await agents.enrollmentCode(c))?.usedAt).toEqual(at(1));
  });

  it("a revoked code cannot be claimed; revoking twice changes nothing the second time", async () => {
    const p = await project();
    const c = await code(p, id(1));
    expect(await agents.revokeEnrollmentCode(c, at(1))).toBe(true);
    expect(await agents.revokeEnrollmentCode(c, at(2))).toBe(false);
    expect(await agents.claimEnrollmentCode(c, at(3))).toBe(false);
    expect(await agents.enrollmentCode(c)).toMatchObject({ revokedAt: at(1), usedAt: null });
  });

  it("builds the configuration source from enabled rows of the project only, by created_at then id", async () => {
    const p = await project();
    const other = await project();
    const asset = async (projectId: string) =>
      (
        await field.insertAsset({
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
      field.insertDevice({
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
      field.insertVariable({
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
      handle.db
        .insert(alertRules)
        .values({
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
        })
        .run();
    rule(p, id(31), at(7));
    rule(p, id(30), at(7));
    rule(p, id(32), at(6), false);
    rule(other, id(33), at(1));

    const source = await agents.configSource(p);
    expect(source.devices.map((d) => d.id)).toEqual([id(11), id(12), id(10)]);
    expect(source.variables.map((v) => v.id)).toEqual([id(21), id(22), id(20)]);
    expect(source.alertRules.map((r) => r.id)).toEqual([id(30), id(31)]);
    expect((await agents.enabledVariables([id(12), id(10)])).map((v) => v.id)).toEqual([id(22), id(20)]);
    expect(await agents.enabledVariables([])).toEqual([]);
    expect(await agents.configSource(randomUUID())).toEqual({ devices: [], variables: [], alertRules: [] });
  });

  it("deployments: highest version first, the newest of every project, and only the project's by id", async () => {
    const p = await project();
    const other = await project();
    expect(await agents.latestDeployment(p)).toBeUndefined();
    await deployment(p, 1);
    const newest = await deployment(p, 2);
    const otherNewest = await deployment(other, 1);
    expect((await agents.deploymentsOf(p)).map((d) => d.version)).toEqual([2, 1]);
    expect(await agents.latestDeployment(p)).toEqual(newest);
    expect((await agents.latestDeployments()).map((d) => d.id).sort()).toEqual(
      [newest.id, otherNewest.id].sort(),
    );
    expect(await agents.deploymentOf(other, newest.id)).toBeUndefined();
    expect(await agents.deploymentOf(p, newest.id)).toEqual(newest);
    expect(await agents.deploymentTarget(p)).toEqual({ autoDeploy: true });
    await field.updateProject(other, { autoDeploy: false });
    expect(await agents.deploymentTarget(other)).toEqual({ autoDeploy: false });
    expect(await agents.autoDeployProjectIds()).toEqual([p]);
    expect(await agents.deploymentTarget(randomUUID())).toBeUndefined();
  });

  it("an applied version fails the project's older pending ones only", async () => {
    const p = await project();
    const other = await project();
    const v1 = await deployment(p, 1);
    const v2 = await deployment(p, 2, "applied");
    const v3 = await deployment(p, 3);
    const v4 = await deployment(p, 4);
    const foreign = await deployment(other, 1);
    await agents.setDeploymentStatus(v4.id, "applied", null, at(50));
    await agents.failPendingBefore(p, 4, "superseded by version 4", at(50));
    const byId = new Map((await agents.deploymentsOf(p)).map((d) => [d.id, d]));
    expect(byId.get(v1.id)).toMatchObject({
      status: "failed",
      error: "superseded by version 4",
      updatedAt: at(50),
    });
    expect(byId.get(v2.id)).toMatchObject({ status: "applied", error: null, updatedAt: at(2) });
    expect(byId.get(v3.id)).toMatchObject({ status: "failed", error: "superseded by version 4" });
    expect(byId.get(v4.id)).toMatchObject({ status: "applied", updatedAt: at(50) });
    expect((await agents.deploymentsOf(other))[0]).toEqual(foreign);
  });

  it("status: offline before any report changes nothing; online keeps the last heartbeat; a heartbeat clears offline", async () => {
    const p = await project();
    await agents.markOffline(p, at(1));
    expect(await agents.status(p)).toBeUndefined();
    await agents.markOnline(p, at(2));
    expect(await agents.status(p)).toEqual({
      projectId: p,
      lastSeen: at(2),
      heartbeat: null,
      offlineAt: null,
    });
    await agents.markSeen(p, at(3), { uptime_seconds: 9 });
    await agents.markOffline(p, at(4));
    expect(await agents.status(p)).toEqual({
      projectId: p,
      lastSeen: at(3),
      heartbeat: { uptime_seconds: 9 },
      offlineAt: at(4),
    });
    await agents.markOnline(p, at(5));
    expect(await agents.status(p)).toEqual({
      projectId: p,
      lastSeen: at(5),
      heartbeat: { uptime_seconds: 9 },
      offlineAt: null,
    });
    await agents.setHealthReport(p, { received_at: at(5).toISOString() });
    expect((await field.project(p))?.lastHealthReport).toEqual({ received_at: at(5).toISOString() });
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
    await agents.appendLogs([
      entry(1, "info", 10, 100),
      entry(2, "error", 30, 100),
      entry(3, "debug", 40, 100),
      entry(4, "warn", 20, 101),
      entry(5, "warn", 20, 102),
      { ...entry(6, "error", 50, 100), projectId: other },
    ]);
    expect((await agents.logsOf(p, ["info", "warn", "error"], 10)).map((l) => l.message)).toEqual([
      "m2",
      "m5",
      "m4",
      "m1",
    ]);
    expect((await agents.logsOf(p, ["warn", "error"], 2)).map((l) => l.message)).toEqual(["m2", "m5"]);
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
      agents.appendLogs([
        { ...row, id: id(1) },
        { ...row, id: id(2), projectId: randomUUID() },
      ]),
    ).rejects.toThrow(/FOREIGN KEY/);
    expect(await agents.logsOf(p, ["info"], 10)).toEqual([]);
    // Inside a store transaction they commit with it.
    await store.transaction(async (tx) => {
      await tx.agents.appendLogs([{ ...row, id: id(3) }]);
      await tx.agents.markOnline(p, at(2));
    });
    expect((await agents.logsOf(p, ["info"], 10)).map((l) => l.id)).toEqual([id(3)]);
  });
});
