import type {
  AgentState,
  DashboardOverview as SharedDashboardOverview,
  ProjectOverview as SharedProjectOverview,
} from "../../../shared/dashboard/overview.ts";
import { seesAllProjects } from "../../../shared/roles.ts";
import { AppError } from "../../errors.ts";
import { ROLLUP_BUCKET_MS } from "../../store/ports/telemetry-store.ts";
import type { ProjectRow } from "../../store/rows.ts";
import { agentHealth } from "../agents/agent-health.ts";
import { type AlarmDto, toAlarmDto } from "../alarms/alarm-dto.ts";
import { type AuthContext, authorize } from "../auth/auth-context.ts";
import type { ServiceContext } from "../context.ts";
import { visibleProject } from "../field/lookup.ts";
import { iso } from "../reports/report-numbers.ts";
import { assetsOverview, type SparkWindow } from "./overview-assets.ts";
import { dayFigures } from "./overview-day.ts";

export const SPARK_HOURS_DEFAULT = 6;
export const SPARK_HOURS_MAX = 24;

export type ProjectOverview = SharedProjectOverview<AlarmDto>;
export type DashboardOverview = SharedDashboardOverview<AlarmDto>;

const SEVERITY_RANK = { critical: 0, warning: 1, info: 2 } as const;

/**
 * GET /dashboard/overview: what an operator starting a shift reads, for one project or every
 * active project the caller sees, in one answer: assets with their key live values and
 * sparklines, today's production and completeness so far, the listed alarms and the agent's state.
 */
export async function dashboardOverview(
  ctx: ServiceContext,
  auth: AuthContext,
  input: { project_id?: string | undefined; hours?: number | undefined },
): Promise<DashboardOverview> {
  authorize(auth, "alarms:read");
  const projects = input.project_id
    ? [await visibleProject(ctx.store.field, auth, input.project_id)]
    : await ctx.store.field.activeProjects(seesAllProjects(auth.role) ? undefined : [...auth.projectIds]);
  const now = ctx.clock.now().getTime();
  // The current, still-filling bucket is the sparkline's last point.
  const toBucket = (Math.floor(now / ROLLUP_BUCKET_MS) + 1) * ROLLUP_BUCKET_MS;
  const spark: SparkWindow = {
    fromBucket: toBucket - (input.hours ?? SPARK_HOURS_DEFAULT) * 3_600_000,
    toBucket,
  };
  const out: ProjectOverview[] = [];
  for (const project of projects.sort((a, b) => cmp(a.name, b.name) || cmp(a.id, b.id))) {
    out.push(await projectOverview(ctx, auth, project, now, spark));
  }
  return {
    as_of: iso(now),
    sparkline: {
      from: iso(spark.fromBucket),
      to: iso(spark.toBucket),
      bucket_seconds: ROLLUP_BUCKET_MS / 1000,
    },
    projects: out,
  };
}

async function projectOverview(
  ctx: ServiceContext,
  auth: AuthContext,
  project: ProjectRow,
  now: number,
  spark: SparkWindow,
): Promise<ProjectOverview> {
  const { store } = ctx;
  await store.telemetry.settleRollups(project.id);
  const assets = await store.field.assetsOf(project.id);
  const { production, completeness } = await dayFigures(store, project, assets, now);
  const alarms = (await store.alarms.listed(project.id))
    .map(toAlarmDto)
    .sort(
      (a, b) =>
        SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity] ||
        Date.parse(b.timestamp) - Date.parse(a.timestamp),
    );
  return {
    project_id: project.id,
    name: project.name,
    location: project.location,
    timezone: project.timezone,
    agent: await agentState(ctx, auth, project.id),
    production,
    completeness,
    alarms,
    assets: await assetsOverview(store, project.id, assets, spark),
  };
}

async function agentState(ctx: ServiceContext, auth: AuthContext, projectId: string): Promise<AgentState> {
  try {
    const h = await agentHealth(ctx, auth, projectId);
    return { status: h.status, last_seen: h.last_seen, reasons: h.reasons };
  } catch (err) {
    // A project that never had an agent: agentHealth's 404.
    if (err instanceof AppError && err.code === "NotFound")
      return { status: "none", last_seen: null, reasons: [] };
    throw err;
  }
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
