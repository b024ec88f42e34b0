import type { Role } from "../../../shared/permissions.ts";

/** The documented API's shapes that the console reads (GET /docs/openapi.yaml has them all). */

export type ProjectSummary = { id: string; name: string };

export type LoginResponse = {
  token: string;
  expires_in: number;
  role: Role;
  projects: ProjectSummary[];
};

export type ErrorBody = { error: string; message: string; requires_2fa?: boolean };

export type Project = {
  id: string;
  name: string;
  description: string | null;
  location: string | null;
  timezone: string;
  is_active: boolean;
};

export type Variable = {
  id: string;
  device_id: string;
  alias: string;
  unit: string | null;
  enabled: boolean;
  poll_interval_ms: number;
};

export type Device = {
  id: string;
  asset_id: string;
  name: string;
  protocol: string;
  enabled: boolean;
  variables: Variable[];
};

export type AssetType = "well" | "tank" | "pipeline" | "station" | "meter";

export type Asset = { id: string; project_id: string; name: string; asset_type: AssetType };

export type ProjectTree = Project & { assets: (Asset & { devices: Device[] })[] };

export type AgentHealth = {
  status: "online" | "degraded" | "offline";
  last_seen: string;
  reasons: string[];
  devices: {
    device_id: string;
    name: string;
    state: "ok" | "failing" | "disabled" | "unsupported";
    last_error?: string | null;
  }[];
};

export type AlarmType = "high" | "low" | "critical_high" | "critical_low" | "comm_loss";
export type Severity = "info" | "warning" | "critical";

export type Alarm = {
  id: string;
  project_id: string;
  asset_id: string | null;
  variable: string;
  value: number;
  alarm_type: AlarmType;
  severity: Severity;
  message: string;
  acknowledged: boolean;
  active: boolean;
  timestamp: string;
  acknowledged_at: string | null;
};

export type AlarmHistoryEntry = {
  id: string;
  alarm_id: string;
  event: "raised" | "cleared" | "acknowledged";
  at: string;
  value: number | null;
  asset_id: string | null;
  variable: string;
  alarm_type: AlarmType;
  severity: Severity;
  message: string;
};

export type TelemetryPayload = {
  asset_id: string;
  timestamp: string;
  readings: { variable: string; value: number; unit?: string | null }[];
};

export type HistoryItem = {
  bucket: string;
  variable: string;
  avg_value: number;
  min_value: number;
  max_value: number;
};

export type ReportPreview = {
  period_start: string;
  period_end: string;
  as_of: string;
  content: { telemetry: { samples_received: number; samples_expected: number; series_count: number } };
};

/** The live stream's messages (GET /api/ws/telemetry). */
export type StreamMessage =
  | {
      type: "telemetry";
      project_id: string;
      asset_id: string;
      timestamp: string;
      readings: TelemetryPayload["readings"];
    }
  | { type: "alarm"; event: "raised" | "cleared" | "acknowledged"; alarm: Alarm }
  | { type: "dropped"; count: number };
