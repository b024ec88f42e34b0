import type { DataType } from "../../../../shared/field/data-types.ts";

/** The Sparkplug B datatypes Caudal's variables map to. */
export type SparkplugType =
  | "Float"
  | "Double"
  | "Int16"
  | "UInt16"
  | "Int32"
  | "UInt32"
  | "Boolean"
  | "String";

const BY_DATA_TYPE: Record<DataType, SparkplugType> = {
  float: "Float",
  float32: "Float",
  float64: "Double",
  int: "Int16",
  int16: "Int16",
  uint16: "UInt16",
  int32: "Int32",
  uint32: "UInt32",
  bool: "Boolean",
  string: "String",
};

const INTEGER_RANGE: Partial<Record<SparkplugType, readonly [number, number]>> = {
  Int16: [-32_768, 32_767],
  UInt16: [0, 65_535],
  Int32: [-2_147_483_648, 2_147_483_647],
  UInt32: [0, 4_294_967_295],
};

/**
 * A variable's Sparkplug datatype: its data_type's namesake (`float` is Float, `int` is Int16).
 * A scale factor other than 1 turns a register's integer into an engineering value with a
 * fraction (a 0.1 scale on an int16 reads 12.3): such a variable is a Double, so nothing is cut.
 */
export function sparkplugTypeOf(dataType: DataType, scaleFactor: number | null): SparkplugType {
  const type = BY_DATA_TYPE[dataType];
  if (scaleFactor !== null && scaleFactor !== 1 && type in INTEGER_RANGE) return "Double";
  return type;
}

/** A reading (always a number in Caudal) as the metric's value: integers rounded into range. */
export function sparkplugValue(type: SparkplugType, value: number): number | boolean | string {
  if (type === "Boolean") return value !== 0;
  if (type === "String") return String(value);
  const range = INTEGER_RANGE[type];
  if (!range) return value;
  return Math.min(range[1], Math.max(range[0], Math.round(value)));
}
