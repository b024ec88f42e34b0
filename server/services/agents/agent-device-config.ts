import { DEFAULT_PORTS, isModbus } from "../../../shared/field/protocol-config.ts";
import type { AgentDevice, AgentVariable } from "../../../shared/mqtt/agent-config.ts";
import type { DeviceRow, VariableRow } from "../../store/rows.ts";
import type { Keys } from "../context.ts";
import { storedSettings } from "../field/devices/device-settings.ts";
import { openSettingsPassword } from "../field/devices/settings-password.ts";

/*
 * How a stored device and its variables become the agent's runtime configuration. Deterministic
 * for an unchanged configuration, so its content hash is stable (idempotent deploys rely on it).
 */

export function toAgentVariable(v: VariableRow): AgentVariable {
  return {
    id: v.id,
    alias: v.alias,
    data_type: v.dataType,
    register_address: v.registerAddress,
    register_kind: v.registerKind,
    word_order: v.wordOrder,
    scale_factor: v.scaleFactor,
    unit: v.unit,
    address: v.address,
    poll_interval_ms: v.pollIntervalMs,
    deadband: v.deadband,
  };
}

/**
 * The device's effective settings for the agent: the OPC UA password opened into it (the only place
 * it leaves the server), and a DNP3 event poll interval left to the variables resolved to the
 * shortest of theirs. Modbus devices carry no settings key, as before settings existed.
 */
function agentSettings(keys: Keys, d: DeviceRow, vars: VariableRow[]): Record<string, unknown> | undefined {
  if (isModbus(d.protocol)) return undefined;
  const settings = storedSettings(d.protocol, d.settings);
  if (d.protocol === "opc_ua") {
    const sealed = d.settingsPasswordEncrypted;
    return { ...settings, password: sealed ? openSettingsPassword(keys, d.id, sealed) : null };
  }
  if (d.protocol === "dnp3" && settings.event_poll_interval_ms === null && vars.length > 0) {
    return { ...settings, event_poll_interval_ms: Math.min(...vars.map((v) => v.pollIntervalMs)) };
  }
  return settings;
}

export function toAgentDevice(keys: Keys, d: DeviceRow, vars: VariableRow[]): AgentDevice {
  const settings = agentSettings(keys, d, vars);
  return {
    id: d.id,
    asset_id: d.assetId,
    name: d.name,
    protocol: d.protocol,
    host: d.host,
    // Rows written before ports defaulted by protocol get the same default here.
    port: d.port ?? DEFAULT_PORTS[d.protocol] ?? null,
    slave_id: d.slaveId,
    ...(settings ? { settings } : {}),
    variables: vars.map(toAgentVariable),
  };
}
