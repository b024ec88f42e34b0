import type { AlertCondition, Protocol } from "../../api/types.ts";

/*
 * The values the API accepts for the configuration's enumerated fields, as the selects offer them.
 * The API's own lists live with its zod schemas (shared/field/data-types.ts, shared/alarms/rule.ts,
 * shared/field/protocols/opc-ua.ts), which the console does not bundle; choices.test.ts keeps
 * these equal to them. The API still judges every value.
 */

export const PROTOCOLS: readonly Protocol[] = ["modbus_tcp", "modbus_rtu", "opc_ua", "s7", "dnp3"];

export const DATA_TYPES = [
  "float",
  "int",
  "bool",
  "string",
  "int16",
  "uint16",
  "int32",
  "uint32",
  "float32",
  "float64",
] as const;

/** Modbus tables with their function codes (Modbus Application Protocol §6.1–6.4). */
export const REGISTER_KINDS = [
  ["holding", "holding (FC 3)"],
  ["input", "input (FC 4)"],
  ["coil", "coil (FC 1)"],
  ["discrete", "discrete (FC 2)"],
] as const;

export const WORD_ORDERS = ["ABCD", "CDAB", "BADC", "DCBA"] as const;

export const OPC_UA_SECURITY_MODES = ["None", "Sign", "SignAndEncrypt"] as const;

export const OPC_UA_SECURITY_POLICIES = [
  "None",
  "Basic256Sha256",
  "Aes128_Sha256_RsaOaep",
  "Aes256_Sha256_RsaPss",
] as const;

/** Conditions shown with their symbols, the API's code beside. */
export const CONDITIONS: readonly (readonly [AlertCondition, string])[] = [
  ["gt", "> (gt)"],
  ["gte", "≥ (gte)"],
  ["eq", "= (eq)"],
  ["lte", "≤ (lte)"],
  ["lt", "< (lt)"],
];

export const LINUX_ARCHES = ["x86_64", "aarch64"] as const;

export const isModbus = (protocol: Protocol): boolean =>
  protocol === "modbus_tcp" || protocol === "modbus_rtu";
