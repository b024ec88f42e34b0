import type { AssetRow, DeviceRow, VariableRow } from "../../store/rows.ts";

/*
 * Create and replace bodies after validation (the route's zod schemas enforce ranges and enums).
 * PUT takes the same body and replaces: an omitted optional field goes back to its default.
 */

export type ProjectInput = {
  name: string;
  description?: string | null | undefined;
  location?: string | null | undefined;
  timezone?: string | undefined;
  is_active?: boolean | undefined;
  auto_deploy?: boolean | undefined;
  /** Checked by the route (shared/field/slug.ts); omitted: derived on create, kept on replace. */
  slug?: string | undefined;
  sparkplug_edge_node_id?: string | undefined;
  sparkplug_primary_host_id?: string | null | undefined;
};

export type AssetInput = {
  project_id: string;
  name: string;
  asset_type: AssetRow["assetType"];
  latitude?: number | null | undefined;
  longitude?: number | null | undefined;
};

export type DeviceInput = {
  name: string;
  protocol: DeviceRow["protocol"];
  host?: string | null | undefined;
  port?: number | null | undefined;
  slave_id?: number | null | undefined;
  enabled?: boolean | undefined;
  /** Checked by the route against the protocol (shared/field/protocol-config.ts). */
  settings?: Record<string, unknown> | null | undefined;
};

export type VariableInput = {
  alias: string;
  data_type: VariableRow["dataType"];
  register_address?: number | null | undefined;
  unit?: string | null | undefined;
  scale_factor?: number | null | undefined;
  enabled?: boolean | undefined;
  address?: string | null | undefined;
  register_kind?: VariableRow["registerKind"] | undefined;
  word_order?: VariableRow["wordOrder"] | undefined;
  poll_interval_ms?: number | undefined;
  deadband?: number | undefined;
};

/** Trimmed text, with an empty string stored as null. */
export function optionalText(value: string | null | undefined): string | null {
  const trimmed = value?.trim();
  return trimmed ? trimmed : null;
}
