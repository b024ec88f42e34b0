import { z } from "zod";

/**
 * Variable data types. The spec's own four (float, int, bool, string) keep their meaning; the
 * precise register types let a Modbus/S7 driver decode exactly. `float` reads as float32 and
 * `int` as int16 from registers.
 */
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
export const dataTypeSchema = z.enum(DATA_TYPES);
export type DataType = z.infer<typeof dataTypeSchema>;

export const REGISTER_KINDS = ["holding", "input", "coil", "discrete"] as const;
export const registerKindSchema = z.enum(REGISTER_KINDS);
export type RegisterKind = z.infer<typeof registerKindSchema>;

/** Byte order of a multi-register value: A is the most significant byte. */
export const WORD_ORDERS = ["ABCD", "CDAB", "BADC", "DCBA"] as const;
export const wordOrderSchema = z.enum(WORD_ORDERS);
export type WordOrder = z.infer<typeof wordOrderSchema>;

export const PROTOCOLS = ["modbus_tcp", "modbus_rtu", "opc_ua", "s7", "dnp3"] as const;
export const protocolSchema = z.enum(PROTOCOLS);
export type Protocol = z.infer<typeof protocolSchema>;

/** 16-bit registers a value of this type occupies. */
export function registerWidth(type: DataType): number {
  switch (type) {
    case "int32":
    case "uint32":
    case "float32":
    case "float":
      return 2;
    case "float64":
      return 4;
    default:
      return 1;
  }
}
