import type { z } from "zod";
import type { DataType, Protocol, RegisterKind } from "./data-types.ts";
import {
  DNP3_ADDRESS_MAX,
  DNP3_DEFAULT_PORT,
  dnp3SettingsSchema,
  parseDnp3Address,
} from "./protocols/dnp3.ts";
import { type FieldProblem, zodProblems } from "./protocols/field-problem.ts";
import { MODBUS_UNIT_MAX, modbusSettingsSchema, modbusVariableProblems } from "./protocols/modbus.ts";
import { OPC_UA_DEFAULT_PORT, opcUaSettingsSchema, parseNodeId } from "./protocols/opc-ua.ts";
import { parseS7Address, S7_DEFAULT_PORT, s7DataTypes, s7SettingsSchema } from "./protocols/s7.ts";

/*
 * The protocol-aware configuration model (issue 9 §1): one definition of each protocol's device
 * settings and variable address, used by the API (400 naming the field), the deployment builder
 * and the agent (which refuses a deployment naming the device, variable and field).
 */

export type { FieldProblem } from "./protocols/field-problem.ts";
export { describeProblems } from "./protocols/field-problem.ts";

const SETTINGS_SCHEMAS = {
  modbus_tcp: modbusSettingsSchema,
  modbus_rtu: modbusSettingsSchema,
  opc_ua: opcUaSettingsSchema,
  s7: s7SettingsSchema,
  dnp3: dnp3SettingsSchema,
} as const;

export type SettingsOf<P extends Protocol> = z.output<(typeof SETTINGS_SCHEMAS)[P]>;
export type DeviceSettings = SettingsOf<Protocol>;

/** Ports the protocols are registered on; Modbus keeps its own (the driver defaults to 502). */
export const DEFAULT_PORTS: Partial<Record<Protocol, number>> = {
  opc_ua: OPC_UA_DEFAULT_PORT,
  s7: S7_DEFAULT_PORT,
  dnp3: DNP3_DEFAULT_PORT,
};

export function isModbus(protocol: Protocol): boolean {
  return protocol === "modbus_tcp" || protocol === "modbus_rtu";
}

/** Protocols whose variables are read by `address` (Modbus reads `register_address`). */
export function usesAddress(protocol: Protocol): boolean {
  return !isModbus(protocol);
}

/**
 * A device's settings for its protocol, defaults applied (absent or null means all defaults).
 * Problems are named `settings.<field>`.
 */
export function parseDeviceSettings<P extends Protocol>(
  protocol: P,
  raw: unknown,
): { ok: true; settings: SettingsOf<P> } | { ok: false; problems: FieldProblem[] } {
  const parsed = SETTINGS_SCHEMAS[protocol].safeParse(raw ?? {});
  if (!parsed.success) return { ok: false, problems: zodProblems(parsed.error, "settings") };
  return { ok: true, settings: parsed.data as SettingsOf<P> };
}

/** Rules across a device's fields and its (parsed) settings. */
export function deviceProblems(
  protocol: Protocol,
  device: { slave_id: number | null; settings: DeviceSettings },
): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const max = isModbus(protocol) ? MODBUS_UNIT_MAX : DNP3_ADDRESS_MAX;
  if (device.slave_id !== null && device.slave_id > max) {
    const what = isModbus(protocol) ? "for Modbus" : "";
    problems.push({ field: "slave_id", message: `must be between 0 and ${max} ${what}`.trim() });
  }
  if (protocol === "dnp3" && "master_address" in device.settings) {
    // IEEE 1815-2012 §9.2.5.2: a link frame names both ends; one address cannot be both.
    if (device.settings.master_address === device.slave_id) {
      problems.push({
        field: "settings.master_address",
        message: "must differ from the outstation address (slave_id)",
      });
    }
  }
  return problems;
}

export type VariableAddressing = {
  data_type: DataType;
  address: string | null;
  register_address: number | null;
  register_kind: RegisterKind;
};

/**
 * A variable's addressing under its device's protocol. `requireAddress`: the agent needs one to
 * poll; the API lets a variable wait for it (spec §2: register_address is optional).
 */
export function variableProblems(
  protocol: Protocol,
  v: VariableAddressing,
  options: { requireAddress: boolean },
): FieldProblem[] {
  if (isModbus(protocol)) return modbusVariableProblems(v, options.requireAddress);
  if (v.address === null) {
    return options.requireAddress ? [{ field: "address", message: `required for ${protocol}` }] : [];
  }
  switch (protocol) {
    case "opc_ua": {
      const nodeId = parseNodeId(v.address);
      return nodeId.ok ? [] : [{ field: "address", message: nodeId.error }];
    }
    case "dnp3": {
      const point = parseDnp3Address(v.address);
      return point.ok ? [] : [{ field: "address", message: point.error }];
    }
    case "s7": {
      const address = parseS7Address(v.address);
      if (!address.ok) return [{ field: "address", message: address.error }];
      const allowed = s7DataTypes(address.value);
      if (allowed.includes(v.data_type)) return [];
      return [
        {
          field: "data_type",
          message: `${address.value.type} at ${v.address} is read as ${allowed.join(" or ")}, not ${v.data_type}`,
        },
      ];
    }
    default:
      return [];
  }
}
