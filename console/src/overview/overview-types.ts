import type { AgentHealth, Alarm, AssetType } from "../api/types.ts";

/** GET /api/dashboard/overview (the API document's DashboardOverview). */
export type DashboardOverview = {
  as_of: string;
  sparkline: { from: string; to: string; bucket_seconds: number };
  projects: ProjectOverview[];
};

export type ProductionStretch = { from: string; to: string; volume_bbls: number; movements: number };

export type KeyVariable = {
  variable: string;
  unit: string | null;
  value: number | null;
  timestamp: string | null;
  spark: (number | null)[];
};

export type AssetOverview = {
  asset_id: string;
  name: string;
  asset_type: AssetType;
  variable_count: number;
  poll_interval_ms: number | null;
  last_reading_at: string | null;
  key_variables: KeyVariable[];
};

export type ProjectOverview = {
  project_id: string;
  name: string;
  location: string | null;
  timezone: string;
  agent: { status: AgentHealth["status"] | "none"; last_seen: string | null; reasons: string[] };
  production: { unit: "bbl"; today: ProductionStretch; yesterday: ProductionStretch };
  completeness: {
    from: string;
    to: string;
    samples_received: number;
    samples_expected: number;
    ratio: number | null;
  };
  alarms: Alarm[];
  assets: AssetOverview[];
};
