import type { AssetRow, DeviceRow, ProjectRow, VariableRow } from "../../store/rows.ts";
import { type AgentHealthReport, parseHealthReport } from "../agents/health-report.ts";
import { storedSettings } from "./devices/device-settings.ts";

/** EdgeProject (spec §2) plus timezone and updated_at. */
export type ProjectDto = {
  id: string;
  name: string;
  slug: string;
  description: string | null;
  location: string | null;
  timezone: string;
  is_active: boolean;
  auto_deploy: boolean;
  sparkplug_edge_node_id: string;
  sparkplug_primary_host_id: string | null;
  last_health_report: AgentHealthReport | null;
  created_at: string;
  updated_at: string;
};

export type AssetDto = {
  id: string;
  project_id: string;
  name: string;
  asset_type: AssetRow["assetType"];
  latitude: number | null;
  longitude: number | null;
  created_at: string;
  updated_at: string;
};

export type DeviceDto = {
  id: string;
  asset_id: string;
  name: string;
  protocol: DeviceRow["protocol"];
  host: string | null;
  port: number | null;
  slave_id: number | null;
  enabled: boolean;
  /** Effective protocol settings; the OPC UA password never appears, only password_set. */
  settings: Record<string, unknown>;
  created_at: string;
  updated_at: string;
};

export type VariableDto = {
  id: string;
  device_id: string;
  alias: string;
  data_type: VariableRow["dataType"];
  register_address: number | null;
  unit: string | null;
  scale_factor: number | null;
  enabled: boolean;
  address: string | null;
  register_kind: VariableRow["registerKind"];
  word_order: VariableRow["wordOrder"];
  poll_interval_ms: number;
  deadband: number;
  created_at: string;
  updated_at: string;
};

export type DeviceTreeDto = DeviceDto & { variables: VariableDto[] };
export type AssetTreeDto = AssetDto & { devices: DeviceTreeDto[] };
export type ProjectTreeDto = ProjectDto & { assets: AssetTreeDto[] };

export function toProjectDto(row: ProjectRow): ProjectDto {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    description: row.description,
    location: row.location,
    timezone: row.timezone,
    is_active: row.isActive,
    auto_deploy: row.autoDeploy,
    sparkplug_edge_node_id: row.sparkplugEdgeNodeId,
    sparkplug_primary_host_id: row.sparkplugPrimaryHostId,
    last_health_report: parseHealthReport(row.lastHealthReport),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export function toAssetDto(row: AssetRow): AssetDto {
  return {
    id: row.id,
    project_id: row.projectId,
    name: row.name,
    asset_type: row.assetType,
    latitude: row.latitude,
    longitude: row.longitude,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export function toDeviceDto(row: DeviceRow): DeviceDto {
  return {
    id: row.id,
    asset_id: row.assetId,
    name: row.name,
    protocol: row.protocol,
    host: row.host,
    port: row.port,
    slave_id: row.slaveId,
    enabled: row.enabled,
    settings: deviceSettingsView(row),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** What responses and audit entries show of a device's settings: never the password itself. */
function deviceSettingsView(row: DeviceRow): Record<string, unknown> {
  const settings = storedSettings(row.protocol, row.settings);
  if (row.protocol !== "opc_ua") return settings;
  const { password: _never, ...rest } = settings;
  return { ...rest, password_set: row.settingsPasswordEncrypted !== null };
}

export function toVariableDto(row: VariableRow): VariableDto {
  return {
    id: row.id,
    device_id: row.deviceId,
    alias: row.alias,
    data_type: row.dataType,
    register_address: row.registerAddress,
    unit: row.unit,
    scale_factor: row.scaleFactor,
    enabled: row.enabled,
    address: row.address,
    register_kind: row.registerKind,
    word_order: row.wordOrder,
    poll_interval_ms: row.pollIntervalMs,
    deadband: row.deadband,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
