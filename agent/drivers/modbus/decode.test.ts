import { describe, expect, it } from "vitest";
import { WORD_ORDERS } from "../../../shared/field/data-types.ts";
import { decodeBytes, decodeRegisters, encodeRegisters, toBigEndian } from "./decode.ts";

describe("Modbus value decoding", () => {
  it("reorders bytes for each word order", () => {
    // 0x11223344 laid out by a device in each order.
    expect(toBigEndian([0x1122, 0x3344], "ABCD").toString("hex")).toBe("11223344");
    expect(toBigEndian([0x3344, 0x1122], "CDAB").toString("hex")).toBe("11223344");
    expect(toBigEndian([0x2211, 0x4433], "BADC").toString("hex")).toBe("11223344");
    expect(toBigEndian([0x4433, 0x2211], "DCBA").toString("hex")).toBe("11223344");
  });

  it("decodes float32 123.456 from each order", () => {
    // 123.456f = 0x42F6E979
    expect(decodeRegisters([0x42f6, 0xe979], "float32", "ABCD", null)).toBeCloseTo(123.456, 3);
    expect(decodeRegisters([0xe979, 0x42f6], "float32", "CDAB", null)).toBeCloseTo(123.456, 3);
    expect(decodeRegisters([0xf642, 0x79e9], "float32", "BADC", null)).toBeCloseTo(123.456, 3);
    expect(decodeRegisters([0x79e9, 0xf642], "float32", "DCBA", null)).toBeCloseTo(123.456, 3);
  });

  it("decodes signed and unsigned integers and applies the scale factor", () => {
    expect(decodeRegisters([0xffff], "int16", "ABCD", null)).toBe(-1);
    expect(decodeRegisters([0xffff], "uint16", "ABCD", null)).toBe(65535);
    expect(decodeRegisters([0xffff, 0xfffe], "int32", "ABCD", null)).toBe(-2);
    expect(decodeRegisters([0xffff, 0xfffe], "uint32", "ABCD", null)).toBe(4294967294);
    expect(decodeRegisters([1234], "int16", "ABCD", 0.1)).toBeCloseTo(123.4, 10);
    expect(decodeRegisters([7], "bool", "ABCD", null)).toBe(1);
  });

  it("round-trips every type through every word order", () => {
    const cases = [
      ["int16", -1234],
      ["uint16", 54321],
      ["int32", -123456789],
      ["uint32", 3000000000],
      ["float32", 1.5],
      ["float64", Math.PI],
    ] as const;
    for (const order of WORD_ORDERS) {
      for (const [type, value] of cases) {
        expect(decodeRegisters(encodeRegisters(value, type, order), type, order, null)).toBe(value);
      }
    }
  });

  it("refuses too few registers and string variables", () => {
    expect(() => decodeRegisters([1], "float64", "ABCD", null)).toThrow(RangeError);
    expect(() => decodeRegisters([1], "string", "ABCD", null)).toThrow(TypeError);
  });

  it("decodes in place from a response's bytes at any register offset, like decodeRegisters", () => {
    const cases = [
      ["int16", -1234],
      ["uint32", 3000000000],
      ["float32", -0.15625],
      ["float64", Math.E],
    ] as const;
    for (const order of WORD_ORDERS) {
      for (const [type, value] of cases) {
        const regs = [0xaaaa, ...encodeRegisters(value, type, order), 0x5555];
        const bytes = Buffer.alloc(regs.length * 2);
        regs.forEach((r, i) => {
          bytes.writeUInt16BE(r, i * 2);
        });
        expect(decodeBytes(bytes, 2, type, order, null)).toBe(value);
        expect(decodeBytes(bytes, 2, type, order, 2)).toBe(value * 2);
      }
    }
    expect(() => decodeBytes(Buffer.alloc(4), 2, "float32", "ABCD", null)).toThrow(RangeError);
  });
});
