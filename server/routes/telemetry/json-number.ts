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

const isDigit = (c: number) => c >= ZERO && c <= NINE;

/**
 * A JSON number token (RFC 8259 §6: -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?) at
 * `bytes[at]`. Returns its end, or -1 when the bytes are no such token (leading zeros, "1.",
 * ".5", "+1", "1e"); `out.value` gets the double JSON.parse gives for it. Digits m below 2^53
 * scaled by 10^k with |k| ≤ 22 are two exact doubles, so one IEEE multiply or divide rounds
 * m·10^k correctly, as JSON.parse does (Clinger's fast path); any other token goes to Number(),
 * whose grammar contains JSON's and which rounds alike.
 */
export function scanJsonNumber(bytes: Buffer, at: number, out: { value: number }): number {
  let p = at;
  let c = bytes[p] ?? -1;
  const negative = c === MINUS;
  if (negative) c = bytes[++p] ?? -1;
  let digits = 0;
  if (c === ZERO) {
    c = bytes[++p] ?? -1;
    if (isDigit(c)) return -1;
  } else if (c >= ONE && c <= NINE) {
    do {
      digits = digits * 10 + (c - ZERO);
      c = bytes[++p] ?? -1;
    } while (isDigit(c));
  } else {
    return -1;
  }
  let scale = 0;
  if (c === DOT) {
    c = bytes[++p] ?? -1;
    if (!isDigit(c)) return -1;
    do {
      digits = digits * 10 + (c - ZERO);
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
  if (digits <= Number.MAX_SAFE_INTEGER && scale >= -22 && scale <= 22) {
    const magnitude = scale >= 0 ? digits * (EXACT_POW10[scale] ?? 1) : digits / (EXACT_POW10[-scale] ?? 1);
    out.value = negative ? -magnitude : magnitude;
  } else {
    out.value = Number(bytes.toString("latin1", at, p));
  }
  return p;
}
