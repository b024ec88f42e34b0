import { and, count, desc, eq, gte, inArray, isNotNull, or, type SQL } from "drizzle-orm";
import { roleCan, seesAllProjects } from "../../../shared/roles.ts";
import { alarms, assets, projects, telemetrySeries } from "../../store/sqlite/schema/index.ts";
import type { AuthContext } from "../auth/auth-context.ts";
import type { ServiceContext } from "../context.ts";
import { type ComplianceEntry, projectCompliance } from "./compliance.ts";

/** An asset is active when it reported within this window. */
export const ACTIVE_WINDOW_MS = 15 * 60_000;
export const RECENT_TELEMETRY_LIMIT = 20;

export type RecentReading = {
  project_id: string;
  asset_id: string;
  asset_name: string;
  variable: string;
  value: number;
  unit: string | null;
  timestamp: string;
};

export type DashboardSummaryDto = {
  active_assets: number;
  total_alarms: number;
  recent_telemetry: RecentReading[];
  compliance_status: "compliant" | "attention" | "non_compliant";
  compliance: ComplianceEntry[];
};

/**
 * GET /dashboard/summary over the caller's projects:
 * - active_assets: assets with a reading in the last 15 minutes;
 * - total_alarms: alarms still listed by GET /alarms (ISA-18.2: until returned to normal and
 *   acknowledged);
 * - recent_telemetry: the newest reading of the 20 most recently updated series; empty for a role
 *   without telemetry:read (an anh_reader sees reports and records, never telemetry);
 * - compliance_status: the worst of the projects' yesterday-report states (see compliance.ts).
 */
export function dashboardSummary(ctx: ServiceContext, auth: AuthContext): DashboardSummaryDto {
  const now = ctx.clock.now().getTime();
  const all = seesAllProjects(auth.role);
  const ids = [...auth.projectIds];
  if (!all && ids.length === 0) {
    return {
      active_assets: 0,
      total_alarms: 0,
      recent_telemetry: [],
      compliance_status: "compliant",
      compliance: [],
    };
  }
  const inScope = (
    column: typeof telemetrySeries.projectId | typeof alarms.projectId | typeof projects.id,
  ) => (all ? undefined : inArray(column, ids));

  const active = ctx.db
    .select({ n: count() })
    .from(assets)
    .where(
      and(
        all ? undefined : inArray(assets.projectId, ids),
        inArray(
          assets.id,
          ctx.db
            .select({ id: telemetrySeries.assetId })
            .from(telemetrySeries)
            .where(
              and(inScope(telemetrySeries.projectId), gte(telemetrySeries.lastTs, now - ACTIVE_WINDOW_MS)),
            ),
        ),
      ),
    )
    .get();

  const listed: SQL | undefined = or(eq(alarms.active, true), eq(alarms.acknowledged, false));
  const openAlarms = ctx.db
    .select({ n: count() })
    .from(alarms)
    .where(and(inScope(alarms.projectId), listed))
    .get();

  const recent = roleCan(auth.role, "telemetry:read")
    ? recentReadings(ctx, inScope(telemetrySeries.projectId))
    : [];

  const projectRows = ctx.db
    .select()
    .from(projects)
    .where(and(inScope(projects.id), eq(projects.isActive, true)))
    .orderBy(projects.name, projects.id)
    .all();
  const compliance = projectRows.flatMap((p) => {
    const entry = projectCompliance(ctx, p, now);
    return entry ? [entry] : [];
  });
  const status = compliance.some((c) => c.status === "non_compliant")
    ? "non_compliant"
    : compliance.some((c) => c.status === "attention")
      ? "attention"
      : "compliant";

  return {
    active_assets: active?.n ?? 0,
    total_alarms: openAlarms?.n ?? 0,
    recent_telemetry: recent.map((r) => ({
      project_id: r.projectId,
      asset_id: r.assetId,
      asset_name: r.assetName,
      variable: r.variable,
      value: r.value ?? 0,
      unit: r.unit,
      timestamp: new Date(r.ts ?? 0).toISOString(),
    })),
    compliance_status: status,
    compliance,
  };
}

/** The newest reading of the RECENT_TELEMETRY_LIMIT most recently updated series in scope. */
function recentReadings(ctx: ServiceContext, scope: SQL | undefined) {
  return ctx.db
    .select({
      projectId: telemetrySeries.projectId,
      assetId: telemetrySeries.assetId,
      assetName: assets.name,
      variable: telemetrySeries.variable,
      value: telemetrySeries.lastValue,
      unit: telemetrySeries.unit,
      ts: telemetrySeries.lastTs,
    })
    .from(telemetrySeries)
    .innerJoin(assets, eq(assets.id, telemetrySeries.assetId))
    .where(and(scope, isNotNull(telemetrySeries.lastTs), isNotNull(telemetrySeries.lastValue)))
    .orderBy(desc(telemetrySeries.lastTs), telemetrySeries.id)
    .limit(RECENT_TELEMETRY_LIMIT)
    .all();
}
