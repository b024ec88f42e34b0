/** Powers of ten a double holds exactly (10^22 is the last). */
const EXACT_POW10 = [
  1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
  1e20, 1e21, 1e22,
];

const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const ZERO = 0x30;
const ONE = 0x31;
const NINE = 0x39;
/** Significant digits a double holds exactly (10^15 < 2^53). */
const HIGH_DIGITS = 15;
/** Digits past those the double-double path takes: 19 in all, below 2^64. */
const LOW_DIGITS = 4;

const isDigit = (c: number) => c >= ZERO && c <= NINE;

export type NumberOut = { value: number; text: string | undefined };

/**
 * A JSON number token (RFC 8259 §6: -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?) at
 * `bytes[at]`. Returns its end, or -1 when the bytes are no such token (leading zeros, "1.",
 * ".5", "+1", "1e"); `out.value` gets the double JSON.parse gives for it, correctly rounded:
 * - up to 15 significant digits scaled by 10^k, |k| ≤ 22: two exact doubles, so one IEEE multiply
 *   or divide rounds correctly (Clinger's fast path);
 * - up to 19 digits (a float32 reading printed as a double has 17): the value in double-double
 *   arithmetic (~2^-100 relative error), kept when rounding it either side of that error gives
 *   the same double;
 * - anything else: Number() of the token, whose grammar contains JSON's and which rounds alike,
 *   on a slice of `out.text` (the body as latin1 text, made once per body; the caller clears it).
 */
export function scanJsonNumber(bytes: Buffer, at: number, out: NumberOut): number {
  let p = at;
  let c = bytes[p] ?? -1;
  const negative = c === MINUS;
  if (negative) c = bytes[++p] ?? -1;
  let high = 0;
  let highDigits = 0;
  let low = 0;
  let lowDigits = 0;
  let tooLong = false;
  let scale = 0;
  if (c === ZERO) {
    c = bytes[++p] ?? -1;
    if (isDigit(c)) return -1;
  } else if (c >= ONE && c <= NINE) {
    // The digit step below is written out again for the fraction on purpose: a shared helper
    // would carry five locals in and out per digit, on the hottest loop of the byte parser.
    do {
      if (highDigits < HIGH_DIGITS) {
        high = high * 10 + (c - ZERO);
        highDigits++;
      } else if (lowDigits < LOW_DIGITS) {
        low = low * 10 + (c - ZERO);
        lowDigits++;
      } else {
        tooLong = true;
      }
      c = bytes[++p] ?? -1;
    } while (isDigit(c));
  } else {
    return -1;
  }
  if (c === DOT) {
    c = bytes[++p] ?? -1;
    if (!isDigit(c)) return -1;
    do {
      // Zeros before the first significant digit only scale.
      if (highDigits === 0 && c === ZERO) {
        // nothing to add
      } else if (highDigits < HIGH_DIGITS) {
        high = high * 10 + (c - ZERO);
        highDigits++;
      } else if (lowDigits < LOW_DIGITS) {
        low = low * 10 + (c - ZERO);
        lowDigits++;
      } else {
        tooLong = true;
      }
      scale--;
      c = bytes[++p] ?? -1;
    } while (isDigit(c));
  }
  if (c === 0x65 || c === 0x45) {
    c = bytes[++p] ?? -1;
    const sign = c === MINUS ? -1 : 1;
    if (c === MINUS || c === PLUS) c = bytes[++p] ?? -1;
    if (!isDigit(c)) return -1;
    let exponent = 0;
    do {
      // Past 10^6 the token takes Number()'s path anyway; the cap keeps the sum an integer.
      if (exponent < 1e6) exponent = exponent * 10 + (c - ZERO);
      c = bytes[++p] ?? -1;
    } while (isDigit(c));
    scale += sign * exponent;
  }
  let magnitude = Number.NaN;
  if (!tooLong && scale >= -22 && scale <= 22) {
    magnitude =
      lowDigits === 0
        ? scale >= 0
          ? high * (EXACT_POW10[scale] ?? 1)
          : high / (EXACT_POW10[-scale] ?? 1)
        : doubleDouble(high, low, lowDigits, scale);
  }
  if (!Number.isNaN(magnitude)) {
    out.value = negative ? -magnitude : magnitude;
  } else {
    out.text ??= bytes.toString("latin1");
    out.value = Number(out.text.slice(at, p));
  }
  return p;
}

/** 2^27 + 1: splits a double into two 26-bit halves (Dekker's product). */
const SPLITTER = 134217729;
/** A correctly rounded but not exact result would differ by less than this, relatively (2^-75). */
const MARGIN = 2 ** -75;

/**
 * (high·10^lowDigits + low)·10^scale to the nearest double, or NaN when the double-double value
 * lies too near a rounding boundary to decide (an exact tie, say): then Number() decides. The
 * error-free steps (Dekker's product, Knuth's and Dekker's sums) are written out with locals:
 * helpers returning pairs through shared variables cost an allocation per double stored.
 */
function doubleDouble(high: number, low: number, lowDigits: number, scale: number): number {
  // m = high·10^lowDigits + low, exactly, as mHigh + mLow.
  const f = EXACT_POW10[lowDigits] ?? 1;
  let ph = high * f;
  let c = SPLITTER * high;
  let ah = c - (c - high);
  let al = high - ah;
  c = SPLITTER * f;
  let bh = c - (c - f);
  let bl = f - bh;
  let pl = ah * bh - ph + ah * bl + al * bh + al * bl;
  const s = ph + low;
  const v = s - ph;
  const e = ph - (s - v) + (low - v);
  const mHigh = s + (e + pl);
  const mLow = e + pl - (mHigh - s);
  // m·10^scale as rHigh + rLow, to about 2^-100 relative.
  let rHigh: number;
  let rLow: number;
  if (scale >= 0) {
    const d = EXACT_POW10[scale] ?? 1;
    ph = mHigh * d;
    c = SPLITTER * mHigh;
    ah = c - (c - mHigh);
    al = mHigh - ah;
    c = SPLITTER * d;
    bh = c - (c - d);
    bl = d - bh;
    pl = ah * bh - ph + ah * bl + al * bh + al * bl + mLow * d;
    rHigh = ph + pl;
    rLow = pl - (rHigh - ph);
  } else {
    const d = EXACT_POW10[-scale] ?? 1;
    const q = mHigh / d;
    ph = q * d;
    c = SPLITTER * q;
    ah = c - (c - q);
    al = q - ah;
    c = SPLITTER * d;
    bh = c - (c - d);
    bl = d - bh;
    pl = ah * bh - ph + ah * bl + al * bh + al * bl;
    const rest = (mHigh - ph - pl + mLow) / d;
    rHigh = q + rest;
    rLow = rest - (rHigh - q);
  }
  const margin = Math.abs(rHigh) * MARGIN;
  const up = rHigh + (rLow + margin);
  return up === rHigh + (rLow - margin) ? up : Number.NaN;
}
