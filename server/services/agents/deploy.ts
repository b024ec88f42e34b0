import { randomUUID } from "node:crypto";
import { type AgentRuntimeConfig, configHash } from "../../../shared/mqtt/agent-config.ts";
import type { Payload } from "../../../shared/mqtt/topics.ts";
import { notFound } from "../../errors.ts";
import type { AgentStore } from "../../store/ports/agent-store.ts";
import type { DeploymentRow } from "../../store/rows.ts";
import type { StorePorts } from "../../store/store.ts";
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

export function toDeploymentDto(r: DeploymentRow): DeploymentDto {
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
export async function buildAgentConfig(
  ctx: ServiceContext,
  agents: AgentStore,
  projectId: string,
): Promise<AgentRuntimeConfig> {
  const source = await agents.configSource(projectId);
  return {
    project_id: projectId,
    devices: source.devices.map((d) =>
      toAgentDevice(
        ctx.keys,
        d,
        source.variables.filter((v) => v.deviceId === d.id),
      ),
    ),
    alert_rules: source.alertRules.map((r) => ({
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
 * Records a deployment (pending) with the next version and the config's content hash, unless the
 * newest deployment already carries that hash: then it is the answer and nothing is written, so
 * a repeated deploy makes no new version. Runs with the ports of the caller's transaction, which
 * has called deploymentTarget (it holds off concurrent deployments of the project).
 */
async function recordDeployment(
  ctx: ServiceContext,
  tx: StorePorts,
  projectId: string,
  createdBy: string | null,
): Promise<{ row: DeploymentRow; created: boolean }> {
  const config = await buildAgentConfig(ctx, tx.agents, projectId);
  const hash = configHash(config);
  const last = await tx.agents.latestDeployment(projectId);
  if (last?.configHash === hash) return { row: last, created: false };
  const now = ctx.clock.now();
  const row = await tx.agents.insertDeployment({
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
  });
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
export async function deployProject(
  ctx: ServiceContext,
  auth: AuthContext,
  projectId: string,
): Promise<DeploymentDto> {
  assertProjectVisible(auth, projectId);
  const { row, created } = await ctx.store.transaction(async (tx) => {
    if (!(await tx.agents.deploymentTarget(projectId))) throw notFound("project");
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
export async function autoDeployProject(
  ctx: ServiceContext,
  projectId: string,
): Promise<DeploymentDto | null> {
  const { row, created } = await ctx.store.transaction(
    async (tx): Promise<{ row: DeploymentRow | null; created: boolean }> => {
      const target = await tx.agents.deploymentTarget(projectId);
      if (!target?.autoDeploy) return { row: null, created: false };
      // Before the first deployment, an empty configuration has nothing to send.
      if (
        !(await tx.agents.latestDeployment(projectId)) &&
        !(await hasPendingChanges(ctx, tx.agents, projectId, null))
      ) {
        return { row: null, created: false };
      }
      return recordDeployment(ctx, tx, projectId, null);
    },
  );
  if (!row || !created) return null;
  announce(ctx, row);
  return toDeploymentDto(row);
}

/**
 * Whether the project's current configuration differs from the deployed one (`deployedHash`).
 * Before any deployment the baseline is the empty configuration: a project with nothing to poll
 * and no rules has nothing pending.
 */
export async function hasPendingChanges(
  ctx: ServiceContext,
  agents: AgentStore,
  projectId: string,
  deployedHash: string | null,
): Promise<boolean> {
  const current = configHash(await buildAgentConfig(ctx, agents, projectId));
  return current !== (deployedHash ?? configHash(emptyAgentConfig(projectId)));
}

function emptyAgentConfig(projectId: string): AgentRuntimeConfig {
  return { project_id: projectId, devices: [], alert_rules: [] };
}

export async function listDeployments(
  ctx: ServiceContext,
  auth: AuthContext,
  projectId: string,
): Promise<DeploymentDto[]> {
  assertProjectVisible(auth, projectId);
  if (!(await ctx.store.field.project(projectId))) throw notFound("project");
  return (await ctx.store.agents.deploymentsOf(projectId)).map(toDeploymentDto);
}

/** The agent's report on a deployment. An applied version supersedes older ones still pending. */
export async function recordConfigStatus(
  ctx: ServiceContext,
  projectId: string,
  s: Payload<"configStatus">,
): Promise<void> {
  const now = ctx.clock.now();
  await ctx.store.transaction(async (tx) => {
    const row = await tx.agents.deploymentOf(projectId, s.deployment_id);
    if (!row) return;
    await tx.agents.setDeploymentStatus(
      row.id,
      s.status,
      s.status === "failed" ? (s.error ?? "failed") : null,
      now,
    );
    if (s.status === "applied")
      await tx.agents.failPendingBefore(projectId, row.version, `superseded by version ${row.version}`, now);
  });
}

/**
 * The newest deployment of every project, as config messages. The broker keeps retained messages
 * in memory, so it republishes these at start-up: an agent offline during a server restart still
 * finds its configuration waiting.
 */
export async function latestConfigMessages(
  ctx: ServiceContext,
): Promise<{ projectId: string; message: Payload<"config"> }[]> {
  return (await ctx.store.agents.latestDeployments()).map((r) => ({
    projectId: r.projectId,
    message: {
      deployment_id: r.id,
      version: r.version,
      hash: r.configHash,
      config: openConfigSecrets(ctx.keys, r.config as AgentRuntimeConfig),
    },
  }));
}
