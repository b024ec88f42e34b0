import { roleCan, seesAllProjects } from "../../../shared/roles.ts";
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
export async function dashboardSummary(ctx: ServiceContext, auth: AuthContext): Promise<DashboardSummaryDto> {
  const now = ctx.clock.now().getTime();
  // Every project for roles that see them all; else the caller's (none: all counts are zero).
  const scope = seesAllProjects(auth.role) ? undefined : [...auth.projectIds];
  const { store } = ctx;
  const activeAssets = await store.telemetry.activeAssetCount(now - ACTIVE_WINDOW_MS, scope);
  const totalAlarms = await store.alarms.listedCount(scope);
  const recent = roleCan(auth.role, "telemetry:read")
    ? await store.telemetry.recentReadings(RECENT_TELEMETRY_LIMIT, scope)
    : [];
  const compliance: ComplianceEntry[] = [];
  for (const project of await store.field.activeProjects(scope)) {
    const entry = await projectCompliance(store.reports, project, now);
    if (entry) compliance.push(entry);
  }
  const status = compliance.some((c) => c.status === "non_compliant")
    ? "non_compliant"
    : compliance.some((c) => c.status === "attention")
      ? "attention"
      : "compliant";

  return {
    active_assets: activeAssets,
    total_alarms: totalAlarms,
    recent_telemetry: recent.map((r) => ({
      project_id: r.projectId,
      asset_id: r.assetId,
      asset_name: r.assetName,
      variable: r.variable,
      value: r.value,
      unit: r.unit,
      timestamp: new Date(r.ts).toISOString(),
    })),
    compliance_status: status,
    compliance,
  };
}
