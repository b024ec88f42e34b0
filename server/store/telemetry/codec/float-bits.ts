/** IEEE 754 bit patterns of numbers, through one scratch DataView (big-endian: hi word first). */
const view = new DataView(new ArrayBuffer(8));

/** The high and low 32-bit words of a double. */
export function doubleWords(value: number): [hi: number, lo: number] {
  view.setFloat64(0, value);
  return [view.getUint32(0), view.getUint32(4)];
}

export function wordsToDouble(hi: number, lo: number): number {
  view.setUint32(0, hi);
  view.setUint32(4, lo);
  return view.getFloat64(0);
}

/** True when the double is exactly a float32 (as an OPC UA Float or a Modbus REAL arrives). */
export function isFloat32(value: number): boolean {
  return Object.is(Math.fround(value), value);
}

/**
 * A float32's bits as an unsigned integer in the order of the values: negatives (sign bit set)
 * reversed below the positives, so that nearby readings have nearby integers and their difference
 * counts the float32 steps between them.
 */
export function float32Ordinal(value: number): number {
  view.setFloat32(0, value);
  const bits = view.getUint32(0);
  return bits >= 0x80000000 ? 0xffffffff - bits : bits + 0x80000000;
}

export function ordinalToFloat32(ordinal: number): number {
  view.setUint32(0, ordinal >= 0x80000000 ? ordinal - 0x80000000 : 0xffffffff - ordinal);
  return view.getFloat32(0);
}
