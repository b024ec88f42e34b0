/**
 * Group/variation layouts (IEEE 1815-2012 Annex A) and the decoders of the measurement types
 * this master reads: binary inputs (g1, g2), counters (g20, g22) and analog inputs (g30, g32).
 * Other types an outstation may put in a class poll (outputs, frozen values, octet strings,
 * times) are sized so the parser can step over them.
 */

export type PointType = "binary" | "analog" | "counter";

/** One value of one point as reported; `flags` is the DNP3 quality octet (ONLINE = 0x01). */
export type Measurement = { type: PointType; index: number; value: number; flags: number; event: boolean };

export type ObjectSize = { kind: "fixed"; size: number } | { kind: "packed"; bits: 1 | 2 };

/** Flags of the variations that carry none: the value is current, so the point is online. */
const ONLINE = 0x01;
/** Binary inputs carry their state in bit 7 of the flags octet (Table ). */
const BINARY_STATE = 0x80;

type Decoded = { value: number; flags: number };
type Decoder = { size: number; type: PointType; event: boolean; decode: (v: DataView) => Decoded };

const flagged = (read: (v: DataView) => number) => (v: DataView) => ({
  flags: v.getUint8(0),
  value: read(v),
});
const unflagged = (read: (v: DataView) => number) => (v: DataView) => ({ flags: ONLINE, value: read(v) });
const i32 = (at: number) => (v: DataView) => v.getInt32(at, true);
const i16 = (at: number) => (v: DataView) => v.getInt16(at, true);
const u32 = (at: number) => (v: DataView) => v.getUint32(at, true);
const u16 = (at: number) => (v: DataView) => v.getUint16(at, true);
const f32 = (at: number) => (v: DataView) => v.getFloat32(at, true);
const f64 = (at: number) => (v: DataView) => v.getFloat64(at, true);
const binary = (v: DataView) => {
  const flags = v.getUint8(0);
  return { flags, value: flags & BINARY_STATE ? 1 : 0 };
};

const key = (group: number, variation: number) => (group << 8) | variation;

const DECODERS = new Map<number, Decoder>([
  // g1 binary input (static): v2 flags; v1 is packed bits (see PACKED).
  [key(1, 2), { size: 1, type: "binary", event: false, decode: binary }],
  // g2 binary input event: v1 flags, v2 + 48-bit time, v3 + 16-bit relative time.
  [key(2, 1), { size: 1, type: "binary", event: true, decode: binary }],
  [key(2, 2), { size: 7, type: "binary", event: true, decode: binary }],
  [key(2, 3), { size: 3, type: "binary", event: true, decode: binary }],
  // g20 counter (static): v1 flags+u32, v2 flags+u16, v3/v4 delta (obsolete, same layout), v5 u32, v6 u16.
  [key(20, 1), { size: 5, type: "counter", event: false, decode: flagged(u32(1)) }],
  [key(20, 2), { size: 3, type: "counter", event: false, decode: flagged(u16(1)) }],
  [key(20, 3), { size: 5, type: "counter", event: false, decode: flagged(u32(1)) }],
  [key(20, 4), { size: 3, type: "counter", event: false, decode: flagged(u16(1)) }],
  [key(20, 5), { size: 4, type: "counter", event: false, decode: unflagged(u32(0)) }],
  [key(20, 6), { size: 2, type: "counter", event: false, decode: unflagged(u16(0)) }],
  // g22 counter event: v1 flags+u32, v2 flags+u16, v3/v4 delta, v5/v6 with 48-bit time.
  [key(22, 1), { size: 5, type: "counter", event: true, decode: flagged(u32(1)) }],
  [key(22, 2), { size: 3, type: "counter", event: true, decode: flagged(u16(1)) }],
  [key(22, 3), { size: 5, type: "counter", event: true, decode: flagged(u32(1)) }],
  [key(22, 4), { size: 3, type: "counter", event: true, decode: flagged(u16(1)) }],
  [key(22, 5), { size: 11, type: "counter", event: true, decode: flagged(u32(1)) }],
  [key(22, 6), { size: 9, type: "counter", event: true, decode: flagged(u16(1)) }],
  // g30 analog input (static): v1 flags+i32, v2 flags+i16, v3 i32, v4 i16, v5 flags+f32, v6 flags+f64.
  [key(30, 1), { size: 5, type: "analog", event: false, decode: flagged(i32(1)) }],
  [key(30, 2), { size: 3, type: "analog", event: false, decode: flagged(i16(1)) }],
  [key(30, 3), { size: 4, type: "analog", event: false, decode: unflagged(i32(0)) }],
  [key(30, 4), { size: 2, type: "analog", event: false, decode: unflagged(i16(0)) }],
  [key(30, 5), { size: 5, type: "analog", event: false, decode: flagged(f32(1)) }],
  [key(30, 6), { size: 9, type: "analog", event: false, decode: flagged(f64(1)) }],
  // g32 analog input event: v1 flags+i32, v2 flags+i16, v3/v4 the same + time, v5 flags+f32,
  // v6 flags+f64, v7/v8 the same + time.
  [key(32, 1), { size: 5, type: "analog", event: true, decode: flagged(i32(1)) }],
  [key(32, 2), { size: 3, type: "analog", event: true, decode: flagged(i16(1)) }],
  [key(32, 3), { size: 11, type: "analog", event: true, decode: flagged(i32(1)) }],
  [key(32, 4), { size: 9, type: "analog", event: true, decode: flagged(i16(1)) }],
  [key(32, 5), { size: 5, type: "analog", event: true, decode: flagged(f32(1)) }],
  [key(32, 6), { size: 9, type: "analog", event: true, decode: flagged(f64(1)) }],
  [key(32, 7), { size: 11, type: "analog", event: true, decode: flagged(f32(1)) }],
  [key(32, 8), { size: 15, type: "analog", event: true, decode: flagged(f64(1)) }],
]);

/** Packed-bit objects: g1v1 binary input, g3v1 double-bit input, g10v1 binary output, g80v1 IIN. */
const PACKED = new Map<number, 1 | 2>([
  [key(1, 1), 1],
  [key(3, 1), 2],
  [key(10, 1), 1],
  [key(80, 1), 1],
]);

/** Sizes of objects that are stepped over (Annex A): group → size per variation. */
const SKIPPED: Record<number, Record<number, number>> = {
  3: { 2: 1 }, // double-bit input
  4: { 1: 1, 2: 7, 3: 3 }, // double-bit input event
  10: { 2: 1 }, // binary output status
  11: { 1: 1, 2: 7 }, // binary output event
  21: { 1: 5, 2: 3, 3: 5, 4: 3, 5: 11, 6: 9, 7: 7, 8: 5, 9: 4, 10: 2, 11: 4, 12: 2 }, // frozen counter
  23: { 1: 5, 2: 3, 3: 5, 4: 3, 5: 11, 6: 9, 7: 11, 8: 9 }, // frozen counter event
  31: { 1: 5, 2: 3, 3: 11, 4: 9, 5: 4, 6: 2, 7: 5, 8: 9 }, // frozen analog input
  33: { 1: 5, 2: 3, 3: 11, 4: 9, 5: 5, 6: 9, 7: 11, 8: 15 }, // frozen analog event
  34: { 1: 2, 2: 4, 3: 4 }, // analog input dead band
  40: { 1: 5, 2: 3, 3: 5, 4: 9 }, // analog output status
  42: { 1: 5, 2: 3, 3: 11, 4: 9, 5: 5, 6: 9, 7: 11, 8: 15 }, // analog output event
  50: { 1: 6, 3: 6, 4: 11 }, // time and date
  51: { 1: 6, 2: 6 }, // common time of occurrence
  52: { 1: 2, 2: 2 }, // time delay
};

export function objectSize(group: number, variation: number): ObjectSize | undefined {
  const bits = PACKED.get(key(group, variation));
  if (bits !== undefined) return { kind: "packed", bits };
  const decoder = DECODERS.get(key(group, variation));
  if (decoder) return { kind: "fixed", size: decoder.size };
  // Octet strings (g110 static, g111 event): the variation is the length (0 is not allowed).
  if ((group === 110 || group === 111) && variation > 0) return { kind: "fixed", size: variation };
  const size = SKIPPED[group]?.[variation];
  return size === undefined ? undefined : { kind: "fixed", size };
}

/** The measurement in one object, or undefined for a type this master does not read. */
export function decodeObject(
  group: number,
  variation: number,
  index: number,
  data: Uint8Array,
): Measurement | undefined {
  if (group === 1 && variation === 1)
    return { type: "binary", index, value: data[0] ? 1 : 0, flags: ONLINE, event: false };
  const decoder = DECODERS.get(key(group, variation));
  if (!decoder || data.length < decoder.size) return undefined;
  const { value, flags } = decoder.decode(new DataView(data.buffer, data.byteOffset, decoder.size));
  return { type: decoder.type, index, value, flags, event: decoder.event };
}
