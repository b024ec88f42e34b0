import { and, asc, desc, eq, inArray, isNull, lt, sql } from "drizzle-orm";
import type { AgentConfigSource, AgentStore } from "../ports/agent-store.ts";
import type {
  AgentLogRow,
  AgentStatusRow,
  DeploymentRow,
  NewAgentLogRow,
  NewDeploymentRow,
  NewEnrollmentCodeRow,
  ProjectRow,
} from "../rows.ts";
import {
  agentBatches,
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
import type { PgExecutor, PgSession } from "./session.ts";

function enabledVariablesIn(executor: PgExecutor, deviceIds: readonly string[]) {
  if (deviceIds.length === 0) return Promise.resolve([]);
  return executor
    .select()
    .from(variables)
    .where(and(inArray(variables.deviceId, [...deviceIds]), eq(variables.enabled, true)))
    .orderBy(asc(variables.createdAt), asc(variables.id));
}

async function configSourceIn(executor: PgExecutor, projectId: string): Promise<AgentConfigSource> {
  const deviceRows = (
    await executor
      .select({ device: devices })
      .from(devices)
      .innerJoin(assets, eq(assets.id, devices.assetId))
      .where(and(eq(assets.projectId, projectId), eq(devices.enabled, true)))
      .orderBy(asc(devices.createdAt), asc(devices.id))
  ).map((r) => r.device);
  const rules = await executor
    .select()
    .from(alertRules)
    .where(and(eq(alertRules.projectId, projectId), eq(alertRules.isEnabled, true)))
    .orderBy(asc(alertRules.createdAt), asc(alertRules.id));
  return {
    devices: deviceRows,
    variables: await enabledVariablesIn(
      executor,
      deviceRows.map((d) => d.id),
    ),
    alertRules: rules,
  };
}

export class PostgresAgentStore implements AgentStore {
  readonly #s: PgSession;

  constructor(session: PgSession) {
    this.#s = session;
  }

  async tokenHash(projectId: string) {
    const [row] = await this.#s
      .executor()
      .select({ hash: projects.agentTokenHash })
      .from(projects)
      .where(eq(projects.id, projectId))
      .limit(1);
    return row?.hash;
  }

  async setTokenHash(projectId: string, hash: string, at: Date) {
    await this.#s
      .executor()
      .update(projects)
      .set({ agentTokenHash: hash, updatedAt: at })
      .where(eq(projects.id, projectId));
  }

  async insertEnrollmentCode(row: NewEnrollmentCodeRow) {
    await this.#s.executor().insert(enrollmentCodes).values(row);
  }

  async enrollmentCodesOf(projectId: string) {
    return this.#s
      .executor()
      .select()
      .from(enrollmentCodes)
      .where(eq(enrollmentCodes.projectId, projectId))
      .orderBy(desc(enrollmentCodes.createdAt), desc(enrollmentCodes.id));
  }

  async enrollmentCode(id: string) {
    const [row] = await this.#s
      .executor()
      .select()
      .from(enrollmentCodes)
      .where(eq(enrollmentCodes.id, id))
      .limit(1);
    return row;
  }

  async enrollmentCodeByHash(codeHash: string) {
    const [row] = await this.#s
      .executor()
      .select()
      .from(enrollmentCodes)
      .where(eq(enrollmentCodes.codeHash, codeHash))
      .limit(1);
    return row;
  }

  async claimEnrollmentCode(id: string, at: Date) {
    // One conditional UPDATE: a concurrent claimer waits on the row lock, then re-checks the
    // condition against the committed row (READ COMMITTED) and updates nothing.
    const claimed = await this.#s
      .executor()
      .update(enrollmentCodes)
      .set({ usedAt: at })
      .where(
        and(eq(enrollmentCodes.id, id), isNull(enrollmentCodes.usedAt), isNull(enrollmentCodes.revokedAt)),
      )
      .returning({ id: enrollmentCodes.id });
    return claimed.length === 1;
  }

  async revokeEnrollmentCode(id: string, at: Date) {
    const revoked = await this.#s
      .executor()
      .update(enrollmentCodes)
      .set({ revokedAt: at })
      .where(and(eq(enrollmentCodes.id, id), isNull(enrollmentCodes.revokedAt)))
      .returning({ id: enrollmentCodes.id });
    return revoked.length === 1;
  }

  async deploymentTarget(projectId: string) {
    const query = this.#s
      .executor()
      .select({ autoDeploy: projects.autoDeploy })
      .from(projects)
      .where(eq(projects.id, projectId));
    // In a transaction the project row stays locked until it ends, so a second deployment of the
    // project waits here and then reads the version this one inserts. FOR NO KEY UPDATE: it
    // conflicts with another deployment's lock, not with inserts of rows naming the project.
    const [row] = await (this.#s.inTransaction() ? query.for("no key update") : query);
    return row;
  }

  async autoDeployProjectIds() {
    const rows = await this.#s
      .executor()
      .select({ id: projects.id })
      .from(projects)
      .where(eq(projects.autoDeploy, true));
    return rows.map((p) => p.id);
  }

  configSource(projectId: string) {
    const executor = this.#s.executor();
    // The configuration's hash covers all three lists: they come from one snapshot (a read-only
    // REPEATABLE READ transaction of their own, or the caller's transaction).
    if (this.#s.inTransaction()) return configSourceIn(executor, projectId);
    return executor.transaction((tx) => configSourceIn(tx, projectId), {
      isolationLevel: "repeatable read",
      accessMode: "read only",
    });
  }

  enabledVariables(deviceIds: readonly string[]) {
    return enabledVariablesIn(this.#s.executor(), deviceIds);
  }

  async latestDeployment(projectId: string) {
    const [row] = await this.#s
      .executor()
      .select()
      .from(deployments)
      .where(eq(deployments.projectId, projectId))
      .orderBy(desc(deployments.version))
      .limit(1);
    return row;
  }

  async latestDeployments() {
    return this.#s
      .executor()
      .select()
      .from(deployments)
      .where(
        sql`${deployments.version} = (SELECT MAX(d.version) FROM deployments d WHERE d.project_id = ${deployments.projectId})`,
      );
  }

  async deploymentsOf(projectId: string) {
    return this.#s
      .executor()
      .select()
      .from(deployments)
      .where(eq(deployments.projectId, projectId))
      .orderBy(desc(deployments.version));
  }

  async deploymentOf(projectId: string, id: string) {
    const [row] = await this.#s
      .executor()
      .select()
      .from(deployments)
      .where(and(eq(deployments.id, id), eq(deployments.projectId, projectId)))
      .limit(1);
    return row;
  }

  async insertDeployment(row: NewDeploymentRow) {
    const [stored] = await this.#s.executor().insert(deployments).values(row).returning();
    if (!stored) throw new Error("INSERT … RETURNING returned no deployment row");
    return stored;
  }

  async setDeploymentStatus(id: string, status: DeploymentRow["status"], error: string | null, at: Date) {
    await this.#s
      .executor()
      .update(deployments)
      .set({ status, error, updatedAt: at })
      .where(eq(deployments.id, id));
  }

  async failPendingBefore(projectId: string, version: number, error: string, at: Date) {
    await this.#s
      .executor()
      .update(deployments)
      .set({ status: "failed", error, updatedAt: at })
      .where(
        and(
          eq(deployments.projectId, projectId),
          eq(deployments.status, "pending"),
          lt(deployments.version, version),
        ),
      );
  }

  async status(projectId: string) {
    const [row] = await this.#s
      .executor()
      .select()
      .from(agentStatus)
      .where(eq(agentStatus.projectId, projectId))
      .limit(1);
    return row;
  }

  async markSeen(projectId: string, at: Date, heartbeat: AgentStatusRow["heartbeat"]) {
    await this.#s
      .executor()
      .insert(agentStatus)
      .values({ projectId, lastSeen: at, heartbeat, offlineAt: null })
      .onConflictDoUpdate({
        target: agentStatus.projectId,
        set: { lastSeen: at, heartbeat, offlineAt: null },
      });
  }

  async markOnline(projectId: string, at: Date) {
    await this.#s
      .executor()
      .insert(agentStatus)
      .values({ projectId, lastSeen: at, heartbeat: null, offlineAt: null })
      .onConflictDoUpdate({ target: agentStatus.projectId, set: { lastSeen: at, offlineAt: null } });
  }

  async markOffline(projectId: string, at: Date) {
    await this.#s
      .executor()
      .update(agentStatus)
      .set({ offlineAt: at })
      .where(eq(agentStatus.projectId, projectId));
  }

  async setHealthReport(projectId: string, report: ProjectRow["lastHealthReport"]) {
    await this.#s
      .executor()
      .update(projects)
      .set({ lastHealthReport: report })
      .where(eq(projects.id, projectId));
  }

  async recordBatch(projectId: string, agentId: string, seq: number, points: number, receivedAt: Date) {
    // One row a batch (last_seq = seq): instances claiming one seq at once meet on the primary key,
    // and the later one finds it taken. Rows copied from SQLite are runs (seq to last_seq): the one
    // with the greatest start at or below seq covers it or none does (runs never overlap).
    const inserted = await this.#s.executor().execute<{ seq: number }>(sql`
      INSERT INTO ${agentBatches} (project_id, agent_id, seq, last_seq, points, received_at)
      SELECT ${projectId}, ${agentId}, ${seq}, ${seq}, ${points}, ${receivedAt.getTime()}
      WHERE NOT EXISTS (
        SELECT 1 FROM (
          SELECT last_seq FROM ${agentBatches}
          WHERE project_id = ${projectId} AND agent_id = ${agentId} AND seq <= ${seq}
          ORDER BY seq DESC LIMIT 1
        ) AS run WHERE run.last_seq >= ${seq})
      ON CONFLICT DO NOTHING
      RETURNING seq`);
    return inserted.rows.length > 0;
  }

  async deleteBatchRecordsBefore(before: Date, limit: number) {
    // The BRIN index on received_at (rows arrive in its order) finds the old ones without a scan.
    const deleted = await this.#s
      .executor()
      .delete(agentBatches)
      .where(
        sql`ctid IN (SELECT ctid FROM ${agentBatches} WHERE ${agentBatches.receivedAt} < ${before.getTime()} LIMIT ${limit})`,
      )
      .returning({ seq: agentBatches.seq });
    return deleted.length;
  }

  async appendLogs(rows: readonly NewAgentLogRow[]) {
    // One statement: all the rows land or none do.
    if (rows.length > 0)
      await this.#s
        .executor()
        .insert(agentLogs)
        .values([...rows]);
  }

  async logsOf(projectId: string, levels: readonly AgentLogRow["level"][], limit: number) {
    if (levels.length === 0) return [];
    return this.#s
      .executor()
      .select()
      .from(agentLogs)
      .where(and(eq(agentLogs.projectId, projectId), inArray(agentLogs.level, [...levels])))
      .orderBy(desc(agentLogs.timestamp), desc(agentLogs.createdAt))
      .limit(limit);
  }
}
