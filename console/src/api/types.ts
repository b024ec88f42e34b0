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

/** Why an agent is not online, as GET /api/edge/agents/{id}/health codes it. */
export type HealthReason =
  | { code: "went_offline" }
  | { code: "no_heartbeat"; seconds: number }
  | {
      code: "device";
      device: string;
      state: "ok" | "failing" | "disabled" | "unsupported";
      error: string | null;
    }
  | { code: "backlog"; minutes: number; points: number };

export type AgentHealth = {
  status: "online" | "degraded" | "offline";
  last_seen: string;
  /** In English; reason_codes are the same, for the console to word in its language. */
  reasons: string[];
  reason_codes?: HealthReason[];
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

/* Agents (page 5) and configuration (page 6). */

/** GET /api/edge/agents/{project_id}/health in full: the overview reads only part of it. */
export type AgentHealthDetail = Omit<AgentHealth, "devices"> & {
  uptime_seconds: number;
  agent_version: string | null;
  /** last_read_at: the heartbeat's (every 15 s); last_reading_at: the newest reading the server holds. */
  devices: (AgentHealth["devices"][number] & {
    last_read_at?: string | null;
    last_reading_at?: string | null;
  })[];
  buffer: { batches: number; points: number; oldest_ts: number | null; dropped_batches: number } | null;
  config: { version: number | null; hash: string | null } | null;
};

/** GET /api/edge/projects/{id}: the project with where its configuration stands. */
export type ProjectWithConfigStatus = Project & {
  auto_deploy: boolean;
  config_status: { deployed_version: number | null; deployed_hash: string | null; pending_changes: boolean };
};

export type Deployment = {
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

export type AgentLogLevel = "debug" | "info" | "warn" | "error";

export type AgentLogEntry = {
  id: string;
  project_id: string;
  level: AgentLogLevel;
  category: string;
  message: string;
  timestamp: string;
};

export type TestReadQuality = "good" | "device_exception" | "timeout" | "comm_error" | "config_error";

export type TestReadResult = {
  device_id: string;
  ok: boolean;
  error: string | null;
  results: {
    variable_id: string;
    alias: string;
    value: number | null;
    quality: TestReadQuality;
    detail?: string | null;
  }[];
  duration_ms: number;
};

export type BrowseResult = {
  device_id: string;
  node_id: string | null;
  ok: boolean;
  error: string | null;
  children: { node_id: string; browse_name: string; node_class: string; data_type: string | null }[];
};

export type Protocol = "modbus_tcp" | "modbus_rtu" | "opc_ua" | "s7" | "dnp3";

export type EdgeDevice = {
  id: string;
  asset_id: string;
  name: string;
  protocol: Protocol;
  host: string | null;
  port: number | null;
  slave_id: number | null;
  enabled: boolean;
  /** The protocol's effective settings; an OPC UA password is never returned (password_set says). */
  settings: Record<string, unknown>;
};

export type EdgeVariable = {
  id: string;
  device_id: string;
  alias: string;
  data_type: string;
  register_address: number | null;
  unit: string | null;
  scale_factor: number | null;
  enabled: boolean;
  address: string | null;
  register_kind: string;
  word_order: string;
  poll_interval_ms: number;
  deadband: number;
};

/** GET /api/edge/projects/{id}/full with every field the configuration page edits. */
export type FieldTree = Project & {
  assets: (Asset & { devices: (EdgeDevice & { variables: EdgeVariable[] })[] })[];
};

export type AlertCondition = "gt" | "gte" | "eq" | "lt" | "lte";

export type AlertRule = {
  id: string;
  project_id: string;
  name: string;
  variable_alias: string;
  condition: AlertCondition;
  threshold: number;
  severity: Severity;
  is_enabled: boolean;
  deadband: number;
  delay_seconds: number;
};

export type EnrollmentCode = {
  id: string;
  purpose: "manual" | "linux_script" | "msi";
  created_at: string;
  expires_at: string;
  used_at: string | null;
  revoked_at: string | null;
  status: "active" | "used" | "expired" | "revoked";
};

export type IssuedEnrollmentCode = { id: string; code: string; expires_at: string };

export type BuildStatus = "queued" | "running" | "succeeded" | "failed";

/** GET /api/edge/installer-address: the server address installers downloaded by this client carry. */
export type InstallerAddress = {
  server_url: string;
  source: "PUBLIC_URL" | "request";
  loopback: boolean;
};

export type InstallerBuild = {
  id: string;
  project_id: string;
  status: BuildStatus;
  agent_version: string | null;
  installer: { bytes: number; sha256: string } | null;
  log: string;
  created_at: string;
  finished_at: string | null;
};
