import { type DataType, registerWidth, type WordOrder } from "../../../shared/field/data-types.ts";

/**
 * Reorders the bytes of a multi-register value into big-endian (ABCD) order.
 * Modbus itself only defines 16-bit registers, big-endian within each register (Modbus
 * Application Protocol v1.1b3 §4.2); how devices lay out 32/64-bit values varies:
 * ABCD = big-endian, CDAB = word-swapped, BADC = byte-swapped, DCBA = little-endian.
 */
export function toBigEndian(registers: readonly number[], order: WordOrder): Buffer {
  const raw = Buffer.alloc(registers.length * 2);
  registers.forEach((r, i) => {
    raw.writeUInt16BE(r & 0xffff, i * 2);
  });
  switch (order) {
    case "ABCD":
      return raw;
    case "DCBA":
      return Buffer.from(raw).reverse();
    case "BADC": {
      const out = Buffer.alloc(raw.length);
      for (let i = 0; i < raw.length; i += 2) {
        out[i] = raw[i + 1] ?? 0;
        out[i + 1] = raw[i] ?? 0;
      }
      return out;
    }
    case "CDAB": {
      // Words in reverse order, bytes within each word kept.
      const out = Buffer.alloc(raw.length);
      const words = raw.length / 2;
      for (let w = 0; w < words; w++) raw.copy(out, (words - 1 - w) * 2, w * 2, w * 2 + 2);
      return out;
    }
  }
}

/** Decodes the registers of one value. `scale` multiplies the raw number (null = 1). */
export function decodeRegisters(
  registers: readonly number[],
  type: DataType,
  order: WordOrder,
  scale: number | null,
): number {
  const width = registerWidth(type);
  if (registers.length < width)
    throw new RangeError(`${type} needs ${width} registers, got ${registers.length}`);
  const be = toBigEndian(registers.slice(0, width), order);
  let value: number;
  switch (type) {
    case "int16":
    case "int":
      value = be.readInt16BE(0);
      break;
    case "uint16":
      value = be.readUInt16BE(0);
      break;
    case "int32":
      value = be.readInt32BE(0);
      break;
    case "uint32":
      value = be.readUInt32BE(0);
      break;
    case "float32":
    case "float":
      value = be.readFloatBE(0);
      break;
    case "float64":
      value = be.readDoubleBE(0);
      break;
    case "bool":
      value = be.readUInt16BE(0) !== 0 ? 1 : 0;
      break;
    case "string":
      throw new TypeError("string variables are not numeric telemetry");
  }
  return scale === null || scale === 1 ? value : value * scale;
}

/** Encodes a value into registers (simulator and tests use this; the inverse of decodeRegisters). */
export function encodeRegisters(value: number, type: DataType, order: WordOrder): number[] {
  const width = registerWidth(type);
  const be = Buffer.alloc(width * 2);
  switch (type) {
    case "int16":
    case "int":
      be.writeInt16BE(value);
      break;
    case "uint16":
    case "bool":
      be.writeUInt16BE(type === "bool" ? (value ? 1 : 0) : value);
      break;
    case "int32":
      be.writeInt32BE(value);
      break;
    case "uint32":
      be.writeUInt32BE(value);
      break;
    case "float32":
    case "float":
      be.writeFloatBE(value);
      break;
    case "float64":
      be.writeDoubleBE(value);
      break;
    case "string":
      throw new TypeError("string variables are not numeric telemetry");
  }
  // Every supported reordering is its own inverse.
  const ordered = toBigEndian(
    Array.from({ length: width }, (_, i) => be.readUInt16BE(i * 2)),
    order,
  );
  return Array.from({ length: width }, (_, i) => ordered.readUInt16BE(i * 2));
}
