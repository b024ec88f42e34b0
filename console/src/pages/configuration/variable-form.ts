import type { EdgeVariable, Protocol } from "../../api/types.ts";
import { type FieldSpec, type FormValues, inputValue } from "../../forms/form-body.ts";
import type { MessageKey } from "../../i18n/i18n.ts";
import { DATA_TYPES, isModbus, REGISTER_KINDS, WORD_ORDERS } from "./choices.ts";

const options = (values: readonly string[]) => values.map((v) => [v, v] as const);

/** How each protocol addresses a variable, as a hint beside the address input. */
const ADDRESS_HELP: Record<Protocol, MessageKey> = {
  modbus_tcp: "config.variable.registerHelp",
  modbus_rtu: "config.variable.registerHelp",
  opc_ua: "config.variable.addressHelpOpcUa",
  s7: "config.variable.addressHelpS7",
  dnp3: "config.variable.addressHelpDnp3",
};

/** The inputs of a variable of a device of `protocol`: Modbus by register, the others by address. */
export function variableSpecs(protocol: Protocol): readonly FieldSpec[] {
  const addressing: FieldSpec[] = isModbus(protocol)
    ? [
        {
          name: "register_address",
          label: "config.variable.registerAddress",
          kind: "number",
          help: ADDRESS_HELP[protocol],
        },
        {
          name: "register_kind",
          label: "config.variable.registerKind",
          kind: "select",
          blank: "config.byDefault",
          options: REGISTER_KINDS,
        },
        {
          name: "word_order",
          label: "config.variable.wordOrder",
          kind: "select",
          blank: "config.byDefault",
          options: options(WORD_ORDERS),
        },
      ]
    : [{ name: "address", label: "config.variable.address", kind: "text", help: ADDRESS_HELP[protocol] }];
  return [
    { name: "alias", label: "config.variable.alias", kind: "text" },
    { name: "data_type", label: "config.variable.dataType", kind: "select", options: options(DATA_TYPES) },
    ...addressing,
    { name: "unit", label: "config.variable.unit", kind: "text" },
    { name: "scale_factor", label: "config.variable.scaleFactor", kind: "number" },
    { name: "poll_interval_ms", label: "config.variable.pollInterval", kind: "number" },
    { name: "deadband", label: "config.variable.deadband", kind: "number" },
    { name: "enabled", label: "config.enabled", kind: "checkbox" },
  ];
}

export function newVariableValues(protocol: Protocol): FormValues {
  return { data_type: isModbus(protocol) ? "float32" : "float", poll_interval_ms: "1000", enabled: true };
}

export function variableValues(v: EdgeVariable): FormValues {
  return {
    alias: v.alias,
    data_type: v.data_type,
    register_address: inputValue(v.register_address),
    register_kind: v.register_kind,
    word_order: v.word_order,
    address: inputValue(v.address),
    unit: inputValue(v.unit),
    scale_factor: inputValue(v.scale_factor),
    poll_interval_ms: inputValue(v.poll_interval_ms),
    deadband: inputValue(v.deadband),
    enabled: v.enabled,
  };
}
