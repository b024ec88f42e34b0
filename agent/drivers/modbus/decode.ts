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
  const raw = Buffer.alloc(width * 2);
  for (let i = 0; i < width; i++) raw.writeUInt16BE((registers[i] ?? 0) & 0xffff, i * 2);
  return decodeBytes(raw, 0, type, order, scale);
}

// Reordering target for non-ABCD values: decoding is synchronous, so one buffer serves every call.
const scratch = Buffer.alloc(8);

/**
 * Decodes one value straight from the register bytes of a read response (the PDU's data,
 * big-endian within each register), starting at `offset` bytes. Polling decodes every tag of
 * every block this way, so it neither copies the block nor allocates per value.
 */
export function decodeBytes(
  raw: Buffer,
  offset: number,
  type: DataType,
  order: WordOrder,
  scale: number | null,
): number {
  const n = registerWidth(type) * 2;
  if (offset < 0 || offset + n > raw.length)
    throw new RangeError(`${type} at byte ${offset} runs past the ${raw.length} bytes read`);
  let be = raw;
  let at = offset;
  if (order !== "ABCD") {
    for (let i = 0; i < n; i++) scratch[i] = raw[offset + sourceByte(i, n, order)] ?? 0;
    be = scratch;
    at = 0;
  }
  let value: number;
  switch (type) {
    case "int16":
    case "int":
      value = be.readInt16BE(at);
      break;
    case "uint16":
      value = be.readUInt16BE(at);
      break;
    case "int32":
      value = be.readInt32BE(at);
      break;
    case "uint32":
      value = be.readUInt32BE(at);
      break;
    case "float32":
    case "float":
      value = be.readFloatBE(at);
      break;
    case "float64":
      value = be.readDoubleBE(at);
      break;
    case "bool":
      value = be.readUInt16BE(at) !== 0 ? 1 : 0;
      break;
    case "string":
      throw new TypeError("string variables are not numeric telemetry");
  }
  return scale === null || scale === 1 ? value : value * scale;
}

/** Which device byte holds big-endian byte `i` of an `n`-byte value (the same map as toBigEndian). */
function sourceByte(i: number, n: number, order: Exclude<WordOrder, "ABCD">): number {
  switch (order) {
    case "DCBA":
      return n - 1 - i;
    case "BADC":
      return i ^ 1;
    case "CDAB":
      return n - 2 - (i & ~1) + (i & 1);
  }
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
