/**
 * Sums and averages of doubles carry float noise (0.1 + 0.2 = 0.30000000000000004). Twelve
 * significant digits keep every digit a field instrument or a person entered and drop the noise.
 */
export function round12(value: number): number {
  return value === 0 ? 0 : Number(value.toPrecision(12));
}

/** `part / whole` as a percentage with two decimals. */
export function percent(part: number, whole: number): number {
  return Math.round((part / whole) * 10_000) / 100;
}

export const iso = (ms: number): string => new Date(ms).toISOString();
