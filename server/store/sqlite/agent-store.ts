import type { Statement } from "better-sqlite3";
import { and, asc, desc, eq, inArray, isNull, lt, sql } from "drizzle-orm";
import type { AgentStore } from "../ports/agent-store.ts";
import type {
  AgentLogRow,
  AgentStatusRow,
  DeploymentRow,
  NewAgentLogRow,
  NewDeploymentRow,
  NewEnrollmentCodeRow,
  ProjectRow,
} from "../rows.ts";
import { BatchLedger } from "./batch-ledger.ts";
import {
  agentLogs,
  agentStatus,
  alertRules,
  assets,
  deployments,
  devices,
  enrollmentCodes,
  projects,
  variables,
} from "./schema/index.ts";
import type { SqliteSession } from "./session.ts";

export class SqliteAgentStore implements AgentStore {
  readonly #s: SqliteSession;
  readonly #ledger: BatchLedger;
  #deleteBatchRecords: Statement<[number, number]> | undefined;

  constructor(session: SqliteSession) {
    this.#s = session;
    this.#ledger = new BatchLedger(session.sqlite);
  }

  tokenHash(projectId: string) {
    return this.#s.gate.run(
      () =>
        this.#s.db
          .select({ hash: projects.agentTokenHash })
          .from(projects)
          .where(eq(projects.id, projectId))
          .get()?.hash,
    );
  }

  setTokenHash(projectId: string, hash: string, at: Date) {
    return this.#s.gate.run(() => {
      this.#s.db
        .update(projects)
        .set({ agentTokenHash: hash, updatedAt: at })
        .where(eq(projects.id, projectId))
        .run();
    });
  }

  insertEnrollmentCode(row: NewEnrollmentCodeRow) {
    return this.#s.gate.run(() => {
      this.#s.db.insert(enrollmentCodes).values(row).run();
    });
  }

  enrollmentCodesOf(projectId: string) {
    return this.#s.gate.run(() =>
      this.#s.db
        .select()
        .from(enrollmentCodes)
        .where(eq(enrollmentCodes.projectId, projectId))
        .orderBy(desc(enrollmentCodes.createdAt), desc(enrollmentCodes.id))
        .all(),
    );
  }

  enrollmentCode(id: string) {
    return this.#s.gate.run(() =>
      this.#s.db.select().from(enrollmentCodes).where(eq(enrollmentCodes.id, id)).get(),
    );
  }

  enrollmentCodeByHash(codeHash: string) {
    return this.#s.gate.run(() =>
      this.#s.db.select().from(enrollmentCodes).where(eq(enrollmentCodes.codeHash, codeHash)).get(),
    );
  }

  claimEnrollmentCode(id: string, at: Date) {
    return this.#s.gate.run(
      () =>
        this.#s.db
          .update(enrollmentCodes)
          .set({ usedAt: at })
          .where(
            and(
              eq(enrollmentCodes.id, id),
              isNull(enrollmentCodes.usedAt),
              isNull(enrollmentCodes.revokedAt),
            ),
          )
          .run().changes === 1,
    );
  }

  revokeEnrollmentCode(id: string, at: Date) {
    return this.#s.gate.run(
      () =>
        this.#s.db
          .update(enrollmentCodes)
          .set({ revokedAt: at })
          .where(and(eq(enrollmentCodes.id, id), isNull(enrollmentCodes.revokedAt)))
          .run().changes === 1,
    );
  }

  deploymentTarget(projectId: string) {
    // Transactions are serial on the one connection (BEGIN IMMEDIATE): nothing to lock.
    return this.#s.gate.run(() =>
      this.#s.db
        .select({ autoDeploy: projects.autoDeploy })
        .from(projects)
        .where(eq(projects.id, projectId))
        .get(),
    );
  }

  autoDeployProjectIds() {
    return this.#s.gate.run(() =>
      this.#s.db
        .select({ id: projects.id })
        .from(projects)
        .where(eq(projects.autoDeploy, true))
        .all()
        .map((p) => p.id),
    );
  }

  configSource(projectId: string) {
    return this.#s.gate.run(() => {
      const deviceRows = this.#s.db
        .select({ device: devices })
        .from(devices)
        .innerJoin(assets, eq(assets.id, devices.assetId))
        .where(and(eq(assets.projectId, projectId), eq(devices.enabled, true)))
        .orderBy(asc(devices.createdAt), asc(devices.id))
        .all()
        .map((r) => r.device);
      const rules = this.#s.db
        .select()
        .from(alertRules)
        .where(and(eq(alertRules.projectId, projectId), eq(alertRules.isEnabled, true)))
        .orderBy(asc(alertRules.createdAt), asc(alertRules.id))
        .all();
      return {
        devices: deviceRows,
        variables: this.#enabledVariables(deviceRows.map((d) => d.id)),
        alertRules: rules,
      };
    });
  }

  enabledVariables(deviceIds: readonly string[]) {
    return this.#s.gate.run(() => this.#enabledVariables(deviceIds));
  }

  #enabledVariables(deviceIds: readonly string[]) {
    if (deviceIds.length === 0) return [];
    return this.#s.db
      .select()
      .from(variables)
      .where(and(inArray(variables.deviceId, [...deviceIds]), eq(variables.enabled, true)))
      .orderBy(asc(variables.createdAt), asc(variables.id))
      .all();
  }

  latestDeployment(projectId: string) {
    return this.#s.gate.run(() =>
      this.#s.db
        .select()
        .from(deployments)
        .where(eq(deployments.projectId, projectId))
        .orderBy(desc(deployments.version))
        .limit(1)
        .get(),
    );
  }

  latestDeployments() {
    return this.#s.gate.run(() =>
      this.#s.db
        .select()
        .from(deployments)
        .where(
          sql`${deployments.version} = (SELECT MAX(d.version) FROM deployments d WHERE d.project_id = ${deployments.projectId})`,
        )
        .all(),
    );
  }

  deploymentsOf(projectId: string) {
    return this.#s.gate.run(() =>
      this.#s.db
        .select()
        .from(deployments)
        .where(eq(deployments.projectId, projectId))
        .orderBy(desc(deployments.version))
        .all(),
    );
  }

  deploymentOf(projectId: string, id: string) {
    return this.#s.gate.run(() =>
      this.#s.db
        .select()
        .from(deployments)
        .where(and(eq(deployments.id, id), eq(deployments.projectId, projectId)))
        .get(),
    );
  }

  insertDeployment(row: NewDeploymentRow) {
    return this.#s.gate.run(() => this.#s.db.insert(deployments).values(row).returning().get());
  }

  setDeploymentStatus(id: string, status: DeploymentRow["status"], error: string | null, at: Date) {
    return this.#s.gate.run(() => {
      this.#s.db
        .update(deployments)
        .set({ status, error, updatedAt: at })
        .where(eq(deployments.id, id))
        .run();
    });
  }

  failPendingBefore(projectId: string, version: number, error: string, at: Date) {
    return this.#s.gate.run(() => {
      this.#s.db
        .update(deployments)
        .set({ status: "failed", error, updatedAt: at })
        .where(
          and(
            eq(deployments.projectId, projectId),
            eq(deployments.status, "pending"),
            lt(deployments.version, version),
          ),
        )
        .run();
    });
  }

  status(projectId: string) {
    return this.#s.gate.run(() =>
      this.#s.db.select().from(agentStatus).where(eq(agentStatus.projectId, projectId)).get(),
    );
  }

  markSeen(projectId: string, at: Date, heartbeat: AgentStatusRow["heartbeat"]) {
    return this.#s.gate.run(() => {
      this.#s.db
        .insert(agentStatus)
        .values({ projectId, lastSeen: at, heartbeat, offlineAt: null })
        .onConflictDoUpdate({
          target: agentStatus.projectId,
          set: { lastSeen: at, heartbeat, offlineAt: null },
        })
        .run();
    });
  }

  markOnline(projectId: string, at: Date) {
    return this.#s.gate.run(() => {
      this.#s.db
        .insert(agentStatus)
        .values({ projectId, lastSeen: at, heartbeat: null, offlineAt: null })
        .onConflictDoUpdate({ target: agentStatus.projectId, set: { lastSeen: at, offlineAt: null } })
        .run();
    });
  }

  markOffline(projectId: string, at: Date) {
    return this.#s.gate.run(() => {
      this.#s.db.update(agentStatus).set({ offlineAt: at }).where(eq(agentStatus.projectId, projectId)).run();
    });
  }

  setHealthReport(projectId: string, report: ProjectRow["lastHealthReport"]) {
    return this.#s.gate.run(() => {
      this.#s.db.update(projects).set({ lastHealthReport: report }).where(eq(projects.id, projectId)).run();
    });
  }

  recordBatch(projectId: string, agentId: string, seq: number, points: number, receivedAt: Date) {
    return this.#s.gate.run(() => this.#ledger.claim(projectId, agentId, seq, points, receivedAt.getTime()));
  }

  /** The open transaction is about to commit: the batches it claimed are written (as runs). */
  beforeCommit(): void {
    this.#ledger.flush();
  }

  committed(): void {
    this.#ledger.committed();
  }

  rolledBack(): void {
    this.#ledger.rolledBack();
  }

  deleteBatchRecordsBefore(before: Date, limit: number) {
    return this.#s.gate.run(() => {
      // A row is a run that its agent's next batches may still extend (batch-ledger.ts), so arrival
      // order is not received_at order: the filter finds the old rows. The table holds about one
      // row an agent a day, so looking through it is cheap.
      this.#deleteBatchRecords ??= this.#s.sqlite.prepare(
        `DELETE FROM agent_batches WHERE rowid IN (
           SELECT rowid FROM agent_batches WHERE received_at < ? ORDER BY rowid LIMIT ?)`,
      );
      return this.#deleteBatchRecords.run(before.getTime(), limit).changes;
    });
  }

  appendLogs(rows: readonly NewAgentLogRow[]) {
    return this.#s.gate.run(() => {
      // A savepoint when the caller's transaction is open: these rows land together either way.
      this.#s.db.transaction((tx) => {
        for (const r of rows) tx.insert(agentLogs).values(r).run();
      });
    });
  }

  logsOf(projectId: string, levels: readonly AgentLogRow["level"][], limit: number) {
    return this.#s.gate.run(() =>
      this.#s.db
        .select()
        .from(agentLogs)
        .where(and(eq(agentLogs.projectId, projectId), inArray(agentLogs.level, [...levels])))
        .orderBy(desc(agentLogs.timestamp), desc(agentLogs.createdAt))
        .limit(limit)
        .all(),
    );
  }
}
