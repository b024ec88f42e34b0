import { z } from "zod";
import { type DataType, type RegisterKind, registerWidth } from "../data-types.ts";
import type { FieldProblem } from "./field-problem.ts";

/** Modbus Application Protocol V1.1b3 §4.4 / MBAP: the unit identifier is one byte. */
export const MODBUS_UNIT_MAX = 255;

/** Modbus keeps its fields on the device and the variable (slave_id, register_*): no settings. */
export const modbusSettingsSchema = z.strictObject({});

export type ModbusAddressing = {
  data_type: DataType;
  register_address: number | null;
  register_kind: RegisterKind;
};

export function modbusVariableProblems(v: ModbusAddressing, requireAddress: boolean): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if (v.register_address === null) {
    if (requireAddress) problems.push({ field: "register_address", message: "required for Modbus" });
  } else {
    // A multi-register value must fit below the end of the 16-bit address space.
    const last = v.register_address + registerWidth(v.data_type) - 1;
    if (last > 65535) {
      problems.push({
        field: "register_address",
        message: `a ${v.data_type} at ${v.register_address} would run past register 65535`,
      });
    }
  }
  // Coils and discrete inputs are single bits (Modbus FC 1 and 2): only bool can hold them.
  if ((v.register_kind === "coil" || v.register_kind === "discrete") && v.data_type !== "bool") {
    problems.push({
      field: "register_kind",
      message: `${v.register_kind} holds a single bit: data_type must be bool`,
    });
  }
  return problems;
}
