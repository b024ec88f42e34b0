import type { AgentRuntimeConfig } from "../../shared/mqtt/agent-config.ts";
import { SUPPORTED_PROTOCOLS } from "../drivers/registry.ts";

/**
 * Checks a deployed configuration beyond its schema: everything this agent needs to poll it.
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
    if (!SUPPORTED_PROTOCOLS.has(d.protocol)) {
      problems.push(`${where}: protocol ${d.protocol} is not supported by this agent version`);
      continue;
    }
    if (d.protocol === "modbus_tcp" && !d.host) problems.push(`${where}: modbus_tcp needs a host`);
    if (d.protocol === "modbus_rtu" && !d.host)
      problems.push(`${where}: modbus_rtu needs the serial device path in host`);
    const aliases = new Set<string>();
    for (const v of d.variables) {
      if (aliases.has(v.alias)) problems.push(`${where}: variable alias "${v.alias}" appears twice`);
      aliases.add(v.alias);
      if (v.register_address === null)
        problems.push(`${where}, variable "${v.alias}": needs register_address`);
      if (v.data_type === "string")
        problems.push(`${where}, variable "${v.alias}": string is not numeric telemetry`);
      const bitKind = v.register_kind === "coil" || v.register_kind === "discrete";
      if (bitKind && v.data_type !== "bool") {
        problems.push(`${where}, variable "${v.alias}": ${v.register_kind} registers hold bool only`);
      }
    }
  }
  return problems;
}
