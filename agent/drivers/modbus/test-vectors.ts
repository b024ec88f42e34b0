import { randomUUID } from "node:crypto";
import type { DataType, RegisterKind, WordOrder } from "../../../shared/field/data-types.ts";
import type { AgentDevice, AgentVariable } from "../../../shared/mqtt/agent-config.ts";

/**
 * Test vectors for the Modbus driver against third-party peers. The register contents are
 * computed here with plain Buffer writes and explicit byte tables, not with the agent's
 * encodeRegisters, so a test does not trust the code it checks.
 */

export function testVariable(
  fields: Partial<AgentVariable> & Pick<AgentVariable, "register_address">,
): AgentVariable {
  return {
    id: randomUUID(),
    alias: `tag_${fields.register_kind ?? "holding"}_${fields.register_address}_${randomUUID().slice(0, 8)}`,
    data_type: "uint16",
    register_kind: "holding",
    word_order: "ABCD",
    scale_factor: null,
    unit: null,
    address: null,
    poll_interval_ms: 1000,
    deadband: 0,
    ...fields,
  };
}

export function testDevice(fields: Partial<AgentDevice> & Pick<AgentDevice, "variables">): AgentDevice {
  return {
    id: randomUUID(),
    asset_id: randomUUID(),
    name: "test device",
    protocol: "modbus_tcp",
    host: "127.0.0.1",
    port: 502,
    slave_id: 1,
    ...fields,
  };
}

// Device byte k holds big-endian byte ORDER_BYTES[n][order][k] of an n-byte value (A = most
// significant). Every one of these permutations is its own inverse.
const ORDER_BYTES: Record<2 | 4 | 8, Record<WordOrder, number[]>> = {
  2: { ABCD: [0, 1], CDAB: [0, 1], BADC: [1, 0], DCBA: [1, 0] },
  4: { ABCD: [0, 1, 2, 3], CDAB: [2, 3, 0, 1], BADC: [1, 0, 3, 2], DCBA: [3, 2, 1, 0] },
  8: {
    ABCD: [0, 1, 2, 3, 4, 5, 6, 7],
    CDAB: [6, 7, 4, 5, 2, 3, 0, 1],
    BADC: [1, 0, 3, 2, 5, 4, 7, 6],
    DCBA: [7, 6, 5, 4, 3, 2, 1, 0],
  },
};

type NumericType = Exclude<DataType, "string" | "bool">;

/** The raw register words a device holds for `value` (and the value it actually represents). */
export function encodeIndependently(
  value: number,
  type: NumericType,
  order: WordOrder,
): { registers: number[]; stored: number } {
  let be: Buffer;
  let stored = value;
  switch (type) {
    case "int16":
    case "int":
      be = Buffer.alloc(2);
      be.writeInt16BE(value);
      break;
    case "uint16":
      be = Buffer.alloc(2);
      be.writeUInt16BE(value);
      break;
    case "int32":
      be = Buffer.alloc(4);
      be.writeInt32BE(value);
      break;
    case "uint32":
      be = Buffer.alloc(4);
      be.writeUInt32BE(value);
      break;
    case "float32":
    case "float":
      be = Buffer.alloc(4);
      be.writeFloatBE(value);
      stored = Math.fround(value);
      break;
    case "float64":
      be = Buffer.alloc(8);
      be.writeDoubleBE(value);
      break;
  }
  const map = ORDER_BYTES[be.length as 2 | 4 | 8][order];
  const device = Buffer.from(map.map((i) => be[i] ?? 0));
  const registers: number[] = [];
  for (let i = 0; i < device.length; i += 2) registers.push(device.readUInt16BE(i));
  return { registers, stored };
}

export type Vectors = {
  registers: Record<RegisterKind, Record<number, number>>;
  variables: AgentVariable[];
  /** Expected reading per variable id. */
  expected: Map<string, number>;
};

const ORDERS: WordOrder[] = ["ABCD", "CDAB", "BADC", "DCBA"];
// Values with four distinct bytes, so that a wrong word order can never decode to the same number.
const BASE: Record<NumericType, number> = {
  int16: -12_345,
  uint16: 54_321,
  int: -4_321,
  int32: -123_456_789,
  uint32: 3_000_000_001,
  float32: 1234.5678,
  float: -98.765,
  float64: Math.PI * 1e6,
};
const SCALED: { type: NumericType; value: number; scale: number }[] = [
  { type: "int16", value: 1234, scale: 0.1 },
  { type: "uint16", value: 65_000, scale: 0.01 },
  { type: "int", value: -250, scale: 4 },
  { type: "int32", value: -7_654_321, scale: 0.001 },
  { type: "uint32", value: 4_000_000_000, scale: 10 },
  { type: "float32", value: 12.5, scale: 2.5 },
  { type: "float", value: -3.25, scale: -1 },
  { type: "float64", value: 1e-3, scale: 1e6 },
];
const BITS = [1, 0, 1, 1, 0, 0, 1, 0, 1, 1, 1, 0, 0, 1, 0, 1, 1, 0, 0, 0, 1];

/**
 * Every numeric type in every word order, holding and input registers (input values differ, so a
 * mixed-up function code shows), scaled cases at another block, a bool held in a register, and
 * bit patterns across several bytes in coils and discrete inputs.
 */
export function buildVectors(): Vectors {
  const registers: Vectors["registers"] = { holding: {}, input: {}, coil: {}, discrete: {} };
  const variables: AgentVariable[] = [];
  const expected = new Map<string, number>();
  const put = (kind: RegisterKind, address: number, words: number[]) =>
    words.forEach((w, i) => {
      registers[kind][address + i] = w;
    });
  for (const kind of ["holding", "input"] as const) {
    let address = 0;
    const shift = kind === "input" ? 7 : 0;
    for (const [type, base] of Object.entries(BASE) as [NumericType, number][]) {
      ORDERS.forEach((order, k) => {
        const value = base > 0 ? base - shift - k : base + shift + k;
        const { registers: words, stored } = encodeIndependently(value, type, order);
        const v = testVariable({
          register_kind: kind,
          register_address: address,
          data_type: type,
          word_order: order,
        });
        put(kind, address, words);
        variables.push(v);
        expected.set(v.id, stored);
        address += words.length;
      });
    }
    address = 500;
    SCALED.forEach(({ type, value, scale }, k) => {
      const order = ORDERS[k % ORDERS.length] ?? "ABCD";
      const { registers: words, stored } = encodeIndependently(value, type, order);
      const v = testVariable({
        register_kind: kind,
        register_address: address,
        data_type: type,
        word_order: order,
        scale_factor: scale,
      });
      put(kind, address, words);
      variables.push(v);
      expected.set(v.id, stored * scale);
      address += words.length;
    });
    for (const [raw, reading] of [
      [7, 1],
      [0, 0],
    ] as const) {
      const v = testVariable({ register_kind: kind, register_address: address, data_type: "bool" });
      put(kind, address, [raw]);
      variables.push(v);
      expected.set(v.id, reading);
      address += 1;
    }
  }
  for (const kind of ["coil", "discrete"] as const) {
    BITS.forEach((bit, i) => {
      // Discrete inputs get the inverted pattern, so FC 1 and FC 2 cannot be confused.
      const value = kind === "coil" ? bit : 1 - bit;
      const address = 3 + i;
      registers[kind][address] = value;
      const v = testVariable({ register_kind: kind, register_address: address, data_type: "bool" });
      variables.push(v);
      expected.set(v.id, value);
    });
  }
  return { registers, variables, expected };
}
