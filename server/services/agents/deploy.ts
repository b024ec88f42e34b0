import { randomUUID } from "node:crypto";
import { and, asc, desc, eq, inArray, lt } from "drizzle-orm";
import { type AgentRuntimeConfig, configHash } from "../../../shared/mqtt/agent-config.ts";
import type { Payload } from "../../../shared/mqtt/topics.ts";
import { alertRules, assets, deployments, devices, projects, variables } from "../../db/schema/index.ts";
import { notFound } from "../../http/errors.ts";
import { type AuthContext, assertProjectVisible } from "../auth/auth-context.ts";
import type { ServiceContext } from "../context.ts";
import { toAgentDevice } from "./agent-device-config.ts";

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

/**
 * Records a deployment (pending) with the next version and the config's content hash, then
 * hands it to the broker, which publishes it retained on the project's config topic.
 */
export function deployProject(ctx: ServiceContext, auth: AuthContext, projectId: string): DeploymentDto {
  assertProjectVisible(auth, projectId);
  const now = ctx.clock.now();
  const row = ctx.db.transaction((tx) => {
    if (!tx.select({ id: projects.id }).from(projects).where(eq(projects.id, projectId)).get())
      throw notFound("project");
    const config = buildAgentConfig(ctx, projectId);
    const last = tx
      .select({ version: deployments.version })
      .from(deployments)
      .where(eq(deployments.projectId, projectId))
      .orderBy(desc(deployments.version))
      .limit(1)
      .get();
    return tx
      .insert(deployments)
      .values({
        id: randomUUID(),
        projectId,
        version: (last?.version ?? 0) + 1,
        configHash: configHash(config),
        config,
        status: "pending",
        error: null,
        createdBy: auth.userId,
        createdAt: now,
        updatedAt: now,
      })
      .returning()
      .get();
  });
  const message: Payload<"config"> = {
    deployment_id: row.id,
    version: row.version,
    hash: row.configHash,
    config: row.config as AgentRuntimeConfig,
  };
  ctx.events.emit("deploymentCreated", { projectId, message });
  return toDeploymentDto(row);
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
      config: JSON.parse(r.config) as AgentRuntimeConfig,
    },
  }));
}
