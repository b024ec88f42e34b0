/*
 * GET /api/dashboard/overview: the one shape the server builds (server/services/dashboard) and the
 * console reads (console/src/overview). Its OpenAPI schema is server/routes/dashboard/overview-schema.ts.
 * The alarms are the API's Alarm as each side types it, hence the parameter.
 */

export type KeyVariable = {
  variable: string;
  unit: string | null;
  value: number | null;
  timestamp: string | null;
  /** The 5-minute averages of the sparkline window, oldest first; null for a bucket without readings. */
  spark: (number | null)[];
};

export type AssetOverview = {
  asset_id: string;
  name: string;
  asset_type: "well" | "tank" | "pipeline" | "station" | "meter";
  /** Variables configured or reporting on the asset. */
  variable_count: number;
  /** The shortest poll interval of its enabled variables on enabled devices; null when none is polled. */
  poll_interval_ms: number | null;
  /** Its newest reading of any variable. */
  last_reading_at: string | null;
  key_variables: KeyVariable[];
};

export type ProductionStretch = { from: string; to: string; volume_bbls: number; movements: number };

export type ProductionSoFar = { unit: "bbl"; today: ProductionStretch; yesterday: ProductionStretch };

export type CompletenessSoFar = {
  from: string;
  to: string;
  samples_received: number;
  samples_expected: number;
  /** received / expected, at most 1; null while nothing is expected yet (nothing polled). */
  ratio: number | null;
};

export type AgentState = {
  /** The agent health's status; none when the project never had an agent. */
  status: "online" | "degraded" | "offline" | "none";
  last_seen: string | null;
  reasons: string[];
};

export type ProjectOverview<Alarm> = {
  project_id: string;
  name: string;
  location: string | null;
  timezone: string;
  agent: AgentState;
  production: ProductionSoFar;
  completeness: CompletenessSoFar;
  /** The alarms GET /alarms lists, most severe first, then newest first. */
  alarms: Alarm[];
  assets: AssetOverview[];
};

export type DashboardOverview<Alarm> = {
  as_of: string;
  sparkline: { from: string; to: string; bucket_seconds: number };
  projects: ProjectOverview<Alarm>[];
};
