import { randomUUID } from "node:crypto";
import { and, asc, desc, eq, inArray, lt } from "drizzle-orm";
import { type AgentRuntimeConfig, configHash } from "../../../shared/mqtt/agent-config.ts";
import type { Payload } from "../../../shared/mqtt/topics.ts";
import { notFound } from "../../errors.ts";
import type { DbOrTx } from "../../store/sqlite/append-audit.ts";
import {
  alertRules,
  assets,
  deployments,
  devices,
  projects,
  variables,
} from "../../store/sqlite/schema/index.ts";
import { type AuthContext, assertProjectVisible } from "../auth/auth-context.ts";
import type { ServiceContext } from "../context.ts";
import { toAgentDevice } from "./agent-device-config.ts";
import { openConfigSecrets, sealConfigSecrets } from "./config-secrets.ts";

export type DeploymentDto = {
  id: string;
  project_id: string;
  version: number;
  config_hash: string;
  status: "pending" | "applied" | "failed";
  error: string | null;
  created_by: string | null;
  created_at: string;
  updated_at: string;
  devices: number;
  variables: number;
  alert_rules: number;
};

export function toDeploymentDto(r: typeof deployments.$inferSelect): DeploymentDto {
  const config = r.config as AgentRuntimeConfig;
  return {
    id: r.id,
    project_id: r.projectId,
    version: r.version,
    config_hash: r.configHash,
    status: r.status,
    error: r.error,
    created_by: r.createdBy,
    created_at: r.createdAt.toISOString(),
    updated_at: r.updatedAt.toISOString(),
    devices: config.devices.length,
    variables: config.devices.reduce((n, d) => n + d.variables.length, 0),
    alert_rules: config.alert_rules.length,
  };
}

/** The agent configuration of a project: enabled devices with their enabled variables, and enabled rules. */
export function buildAgentConfig(ctx: ServiceContext, projectId: string): AgentRuntimeConfig {
  const deviceRows = ctx.db
    .select({ device: devices })
    .from(devices)
    .innerJoin(assets, eq(assets.id, devices.assetId))
    .where(and(eq(assets.projectId, projectId), eq(devices.enabled, true)))
    .orderBy(asc(devices.createdAt), asc(devices.id))
    .all()
    .map((r) => r.device);
  const variableRows =
    deviceRows.length === 0
      ? []
      : ctx.db
          .select()
          .from(variables)
          .where(
            and(
              inArray(
                variables.deviceId,
                deviceRows.map((d) => d.id),
              ),
              eq(variables.enabled, true),
            ),
          )
          .orderBy(asc(variables.createdAt), asc(variables.id))
          .all();
  const rules = ctx.db
    .select()
    .from(alertRules)
    .where(and(eq(alertRules.projectId, projectId), eq(alertRules.isEnabled, true)))
    .orderBy(asc(alertRules.createdAt), asc(alertRules.id))
    .all();
  return {
    project_id: projectId,
    devices: deviceRows.map((d) =>
      toAgentDevice(
        ctx.keys,
        d,
        variableRows.filter((v) => v.deviceId === d.id),
      ),
    ),
    alert_rules: rules.map((r) => ({
      id: r.id,
      name: r.name,
      variable_alias: r.variableAlias,
      condition: r.condition,
      threshold: r.threshold,
      severity: r.severity,
      deadband: r.deadband,
      delay_seconds: r.delaySeconds,
    })),
  };
}

type DeploymentRow = typeof deployments.$inferSelect;

/** The project's newest deployment, or undefined before the first. */
export function latestDeployment(db: DbOrTx, projectId: string): DeploymentRow | undefined {
  return db
    .select()
    .from(deployments)
    .where(eq(deployments.projectId, projectId))
    .orderBy(desc(deployments.version))
    .limit(1)
    .get();
}

/**
 * Records a deployment (pending) with the next version and the config's content hash, unless the
 * newest deployment already carries that hash: then it is the answer and nothing is written, so
 * a repeated deploy makes no new version. Runs inside the caller's transaction.
 */
function recordDeployment(
  ctx: ServiceContext,
  tx: DbOrTx,
  projectId: string,
  createdBy: string | null,
): { row: DeploymentRow; created: boolean } {
  const config = buildAgentConfig(ctx, projectId);
  const hash = configHash(config);
  const last = latestDeployment(tx, projectId);
  if (last?.configHash === hash) return { row: last, created: false };
  const now = ctx.clock.now();
  const row = tx
    .insert(deployments)
    .values({
      id: randomUUID(),
      projectId,
      version: (last?.version ?? 0) + 1,
      configHash: hash,
      config: sealConfigSecrets(ctx.keys, config),
      status: "pending",
      error: null,
      createdBy,
      createdAt: now,
      updatedAt: now,
    })
    .returning()
    .get();
  return { row, created: true };
}

/** After commit: the broker publishes the new deployment retained on the project's config topic. */
function announce(ctx: ServiceContext, row: DeploymentRow): void {
  const message: Payload<"config"> = {
    deployment_id: row.id,
    version: row.version,
    hash: row.configHash,
    config: openConfigSecrets(ctx.keys, row.config as AgentRuntimeConfig),
  };
  ctx.events.emit("deploymentCreated", { projectId: row.projectId, message });
}

/** POST …/deploy: the new deployment, or the newest one when the configuration has not changed. */
export function deployProject(ctx: ServiceContext, auth: AuthContext, projectId: string): DeploymentDto {
  assertProjectVisible(auth, projectId);
  const { row, created } = ctx.db.transaction((tx) => {
    if (!tx.select({ id: projects.id }).from(projects).where(eq(projects.id, projectId)).get())
      throw notFound("project");
    return recordDeployment(ctx, tx, projectId, auth.userId);
  });
  if (created) announce(ctx, row);
  return toDeploymentDto(row);
}

/**
 * The automatic deployment after a change (services/agents/auto-deploy.ts): only for a project
 * that still exists with auto_deploy on, and only when the configuration hash changed. Recorded
 * with no user (created_by null). Returns the new deployment, or null when none was made.
 */
export function autoDeployProject(ctx: ServiceContext, projectId: string): DeploymentDto | null {
  const { row, created } = ctx.db.transaction((tx) => {
    const project = tx
      .select({ autoDeploy: projects.autoDeploy })
      .from(projects)
      .where(eq(projects.id, projectId))
      .get();
    if (!project?.autoDeploy) return { row: null, created: false };
    // Before the first deployment, an empty configuration has nothing to send.
    if (!latestDeployment(tx, projectId) && !hasPendingChanges(ctx, projectId, null)) {
      return { row: null, created: false };
    }
    return recordDeployment(ctx, tx, projectId, null);
  });
  if (!row || !created) return null;
  announce(ctx, row);
  return toDeploymentDto(row);
}

/**
 * Whether the project's current configuration differs from the deployed one (`deployedHash`).
 * Before any deployment the baseline is the empty configuration: a project with nothing to poll
 * and no rules has nothing pending.
 */
export function hasPendingChanges(
  ctx: ServiceContext,
  projectId: string,
  deployedHash: string | null,
): boolean {
  const current = configHash(buildAgentConfig(ctx, projectId));
  return current !== (deployedHash ?? configHash(emptyAgentConfig(projectId)));
}

function emptyAgentConfig(projectId: string): AgentRuntimeConfig {
  return { project_id: projectId, devices: [], alert_rules: [] };
}

export function listDeployments(ctx: ServiceContext, auth: AuthContext, projectId: string): DeploymentDto[] {
  assertProjectVisible(auth, projectId);
  if (!ctx.db.select({ id: projects.id }).from(projects).where(eq(projects.id, projectId)).get())
    throw notFound("project");
  return ctx.db
    .select()
    .from(deployments)
    .where(eq(deployments.projectId, projectId))
    .orderBy(desc(deployments.version))
    .all()
    .map(toDeploymentDto);
}

/** The agent's report on a deployment. An applied version supersedes older ones still pending. */
export function recordConfigStatus(ctx: ServiceContext, projectId: string, s: Payload<"configStatus">): void {
  const now = ctx.clock.now();
  ctx.db.transaction((tx) => {
    const row = tx
      .select()
      .from(deployments)
      .where(and(eq(deployments.id, s.deployment_id), eq(deployments.projectId, projectId)))
      .get();
    if (!row) return;
    tx.update(deployments)
      .set({ status: s.status, error: s.status === "failed" ? (s.error ?? "failed") : null, updatedAt: now })
      .where(eq(deployments.id, row.id))
      .run();
    if (s.status === "applied") {
      tx.update(deployments)
        .set({ status: "failed", error: `superseded by version ${row.version}`, updatedAt: now })
        .where(
          and(
            eq(deployments.projectId, projectId),
            eq(deployments.status, "pending"),
            lt(deployments.version, row.version),
          ),
        )
        .run();
    }
  });
}

/**
 * The newest deployment of every project, as config messages. The broker keeps retained messages
 * in memory, so it republishes these at start-up: an agent offline during a server restart still
 * finds its configuration waiting.
 */
export function latestConfigMessages(
  ctx: ServiceContext,
): { projectId: string; message: Payload<"config"> }[] {
  const rows = ctx.sqlite
    .prepare(
      `SELECT d.* FROM deployments d
       WHERE d.version = (SELECT MAX(version) FROM deployments WHERE project_id = d.project_id)`,
    )
    .all() as { id: string; project_id: string; version: number; config_hash: string; config: string }[];
  return rows.map((r) => ({
    projectId: r.project_id,
    message: {
      deployment_id: r.id,
      version: r.version,
      hash: r.config_hash,
      config: openConfigSecrets(ctx.keys, JSON.parse(r.config) as AgentRuntimeConfig),
    },
  }));
}
