/**
 * A class 0 response with `points` analog inputs (g30v1: flags + 32-bit value, qualifier 0x01:
 * 16-bit start and stop indices), split into fragments of at most 400 points (2,011 bytes, under
 * the 2,048-byte fragment default), laid out like opendnp3's "ReadClass0MultiFragAnalog" response
 * (test-vectors.ts, class0FourFragments): CON on every fragment but the last, FIN on the last.
 * The outstation sets SEQ and IIN itself. For the bench only: the codec is checked against the
 * recorded vectors, not against this.
 */
export function integrityFragments(points: number): string[] {
  const perFragment = 400;
  const fragments: string[] = [];
  for (let start = 0; start < points; start += perFragment) {
    const stop = Math.min(points, start + perFragment) - 1;
    const first = start === 0;
    const last = stop === points - 1;
    const control = (first ? 0x80 : 0) | (last ? 0x40 : 0x20);
    const bytes = [
      control,
      0x81,
      0x00,
      0x00,
      0x1e,
      0x01,
      0x01,
      start & 0xff,
      start >> 8,
      stop & 0xff,
      stop >> 8,
    ];
    for (let i = start; i <= stop; i++) {
      const value = Buffer.alloc(4);
      value.writeInt32LE(i * 10);
      bytes.push(0x01, ...value);
    }
    fragments.push(bytes.map((b) => b.toString(16).padStart(2, "0")).join(" "));
  }
  return fragments;
}
