import {
  deviceProblems,
  isModbus,
  parseDeviceSettings,
  variableProblems,
} from "../../shared/field/protocol-config.ts";
import type { AgentDevice, AgentRuntimeConfig } from "../../shared/mqtt/agent-config.ts";
import { SUPPORTED_PROTOCOLS } from "../drivers/registry.ts";

/**
 * Checks a deployed configuration beyond its schema: everything this agent needs to poll it,
 * under the same protocol rules the API applies (shared/field/protocol-config.ts).
 * Returns the reasons it cannot be applied (empty when it can).
 */
export function configProblems(config: AgentRuntimeConfig, projectId: string): string[] {
  const problems: string[] = [];
  if (config.project_id !== projectId) problems.push(`configuration is for project ${config.project_id}`);
  const deviceIds = new Set<string>();
  for (const d of config.devices) {
    const where = `device "${d.name}"`;
    if (deviceIds.has(d.id)) problems.push(`${where}: duplicate id`);
    deviceIds.add(d.id);
    problems.push(...deviceSetupProblems(d).map((p) => `${where}: ${p}`));
    if (!SUPPORTED_PROTOCOLS.has(d.protocol)) {
      problems.push(`${where}: protocol ${d.protocol} is not supported by this agent version`);
    }
    const aliases = new Set<string>();
    for (const v of d.variables) {
      const at = `${where}, variable "${v.alias}"`;
      if (aliases.has(v.alias)) problems.push(`${where}: variable alias "${v.alias}" appears twice`);
      aliases.add(v.alias);
      for (const p of variableProblems(d.protocol, v, { requireAddress: true }))
        problems.push(`${at}: ${p.field}: ${p.message}`);
      if (v.data_type === "string") problems.push(`${at}: string is not numeric telemetry`);
    }
  }
  return problems;
}

function deviceSetupProblems(d: AgentDevice): string[] {
  const problems: string[] = [];
  if (d.protocol === "modbus_rtu" && !d.host)
    problems.push("modbus_rtu needs the serial device path in host");
  else if (!d.host)
    problems.push(isModbus(d.protocol) ? `${d.protocol} needs a host` : `host: required for ${d.protocol}`);
  const settings = parseDeviceSettings(d.protocol, d.settings);
  if (!settings.ok) return [...problems, ...settings.problems.map((p) => `${p.field}: ${p.message}`)];
  for (const p of deviceProblems(d.protocol, { slave_id: d.slave_id, settings: settings.settings }))
    problems.push(`${p.field}: ${p.message}`);
  if (d.protocol === "dnp3" && d.slave_id === null)
    problems.push("slave_id: the DNP3 outstation address is required");
  return problems;
}
