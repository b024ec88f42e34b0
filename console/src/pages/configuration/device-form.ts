import type { EdgeDevice, Protocol } from "../../api/types.ts";
import { type FieldSpec, type FormValues, inputValue } from "../../forms/form-body.ts";
import { OPC_UA_SECURITY_MODES, OPC_UA_SECURITY_POLICIES, PROTOCOLS } from "./choices.ts";

const options = (values: readonly string[]) => values.map((v) => [v, v] as const);

const COMMON: readonly FieldSpec[] = [
  { name: "name", label: "config.device.name", kind: "text" },
  { name: "protocol", label: "config.device.protocol", kind: "select", options: options(PROTOCOLS) },
  { name: "host", label: "config.device.host", kind: "text", help: "config.device.hostHelp" },
  { name: "port", label: "config.device.port", kind: "number", help: "config.device.portHelp" },
  { name: "slave_id", label: "config.device.slaveId", kind: "number", help: "config.device.slaveIdHelp" },
  { name: "enabled", label: "config.enabled", kind: "checkbox" },
];

/** The `settings` of each protocol (Modbus has none), named as the API names them. */
const SETTINGS: Record<Protocol, readonly FieldSpec[]> = {
  modbus_tcp: [],
  modbus_rtu: [],
  opc_ua: [
    { name: "settings.endpoint_path", label: "config.device.endpointPath", kind: "text" },
    {
      name: "settings.security_mode",
      label: "config.device.securityMode",
      kind: "select",
      options: options(OPC_UA_SECURITY_MODES),
    },
    {
      name: "settings.security_policy",
      label: "config.device.securityPolicy",
      kind: "select",
      blank: "config.byDefault",
      options: options(OPC_UA_SECURITY_POLICIES),
    },
    { name: "settings.username", label: "config.device.username", kind: "text" },
    {
      name: "settings.password",
      label: "config.device.password",
      kind: "password",
      help: "config.device.passwordHelp",
    },
    { name: "settings.trust_on_first_use", label: "config.device.trustOnFirstUse", kind: "checkbox" },
  ],
  s7: [
    { name: "settings.rack", label: "config.device.rack", kind: "number" },
    { name: "settings.slot", label: "config.device.slot", kind: "number" },
  ],
  dnp3: [
    { name: "settings.master_address", label: "config.device.masterAddress", kind: "number" },
    {
      name: "settings.integrity_poll_interval_ms",
      label: "config.device.integrityPoll",
      kind: "number",
    },
    { name: "settings.event_poll_interval_ms", label: "config.device.eventPoll", kind: "number" },
  ],
};

const protocolOf = (values: FormValues): Protocol => {
  const p = values.protocol;
  return PROTOCOLS.find((known) => known === p) ?? "modbus_tcp";
};

/** The inputs of a device of the protocol chosen in `values`: the common ones and its settings. */
export function deviceSpecs(values: FormValues): readonly FieldSpec[] {
  return [...COMMON, ...SETTINGS[protocolOf(values)]];
}

/** A new device's inputs: Modbus TCP, enabled. */
export function newDeviceValues(): FormValues {
  return { protocol: "modbus_tcp", enabled: true };
}

/**
 * An existing device's inputs. The OPC UA password is never returned, so its input starts empty
 * and an empty one keeps the stored password (the API's rule for an omitted one on PUT).
 */
export function deviceValues(device: EdgeDevice): FormValues {
  const values: FormValues = {
    name: device.name,
    protocol: device.protocol,
    host: inputValue(device.host),
    port: inputValue(device.port),
    slave_id: inputValue(device.slave_id),
    enabled: device.enabled,
  };
  for (const spec of SETTINGS[device.protocol]) {
    const key = spec.name.slice("settings.".length);
    if (key !== "password") values[spec.name] = inputValue(device.settings[key]);
  }
  return values;
}
