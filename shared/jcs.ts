/**
 * RFC 8785 JSON Canonicalization Scheme (JCS).
 *
 * The input must be I-JSON (RFC 7493): null, booleans, finite numbers, strings without lone
 * surrogates, arrays and plain objects. Anything else (undefined, NaN, Infinity, bigint, Date,
 * functions, class instances, lone surrogates) throws a JcsError rather than being silently
 * dropped or coerced, because the bytes are hashed and a silent change would go unnoticed.
 */
export class JcsError extends Error {}

/** The canonical text of `value` (RFC 8785 §3). */
export function canonicalize(value: unknown): string {
  const out: string[] = [];
  write(value, out, "$");
  return out.join("");
}

/** The canonical UTF-8 bytes of `value` (RFC 8785 §3.2.5: the output is UTF-8). */
export function canonicalBytes(value: unknown): Buffer {
  return Buffer.from(canonicalize(value), "utf8");
}

function write(value: unknown, out: string[], path: string): void {
  if (value === null) {
    out.push("null");
    return;
  }
  switch (typeof value) {
    case "boolean":
      out.push(value ? "true" : "false");
      return;
    case "number":
      out.push(serializeNumber(value, path));
      return;
    case "string":
      out.push(serializeString(value, path));
      return;
    case "object":
      if (Array.isArray(value)) {
        writeArray(value, out, path);
        return;
      }
      if (isPlainObject(value)) {
        writeObject(value, out, path);
        return;
      }
      throw new JcsError(`${path}: ${describe(value)} is not JSON data`);
    default:
      throw new JcsError(`${path}: ${typeof value} is not JSON data`);
  }
}

function writeArray(value: readonly unknown[], out: string[], path: string): void {
  out.push("[");
  for (let i = 0; i < value.length; i++) {
    if (i > 0) out.push(",");
    write(value[i], out, `${path}[${i}]`);
  }
  out.push("]");
}

function writeObject(value: Record<string, unknown>, out: string[], path: string): void {
  // RFC 8785 §3.2.3: properties sorted by their names as arrays of UTF-16 code units. JavaScript's
  // default string comparison is exactly that (it compares code units, not code points).
  const keys = Object.keys(value).sort();
  out.push("{");
  let first = true;
  for (const key of keys) {
    if (!first) out.push(",");
    first = false;
    out.push(serializeString(key, `${path} key`));
    out.push(":");
    write(value[key], out, `${path}.${key}`);
  }
  out.push("}");
}

function isPlainObject(value: object): value is Record<string, unknown> {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function describe(value: object): string {
  return value.constructor?.name ? `an instance of ${value.constructor.name}` : "this object";
}

/**
 * RFC 8785 §3.2.2.2: control characters U+0000–U+001F as \b \t \n \f \r or lower-case \u00hh,
 * `"` and `\` escaped, everything else as is. Lone surrogates are not I-JSON (RFC 7493 §2.1).
 */
export function serializeString(value: string, path = "$"): string {
  let out = '"';
  let runStart = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    let replacement: string | undefined;
    if (c < 0x20) replacement = CONTROL_ESCAPES[c];
    else if (c === 0x22) replacement = '\\"';
    else if (c === 0x5c) replacement = "\\\\";
    else if (c >= 0xd800 && c <= 0xdfff) {
      const next = value.charCodeAt(i + 1);
      const paired = c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff;
      if (!paired) {
        throw new JcsError(`${path}: lone surrogate U+${c.toString(16).toUpperCase()} at index ${i}`);
      }
      i++;
      continue;
    }
    if (replacement !== undefined) {
      out += value.slice(runStart, i) + replacement;
      runStart = i + 1;
    }
  }
  return `${out}${value.slice(runStart)}"`;
}

const CONTROL_ESCAPES: readonly string[] = Array.from({ length: 0x20 }, (_, c) => {
  const short: Record<number, string> = { 8: "\\b", 9: "\\t", 10: "\\n", 12: "\\f", 13: "\\r" };
  return short[c] ?? `\\u${c.toString(16).padStart(4, "0")}`;
});

/**
 * RFC 8785 §3.2.2.3: numbers as ECMAScript Number.prototype.toString does (ECMA-262 §6.1.6.1.20,
 * Number::toString with radix 10). The shortest round-tripping digits come from
 * Number.prototype.toExponential() without an argument (ECMA-262 §21.1.3.2 step 10.b: the smallest
 * digit count whose value is the same double); the layout rules below are those of Number::toString.
 */
export function serializeNumber(value: number, path = "$"): string {
  if (!Number.isFinite(value)) throw new JcsError(`${path}: ${value} is not allowed in I-JSON`);
  // Step 2: +0 and -0 both print as "0".
  if (value === 0) return "0";
  if (value < 0) return `-${serializeNumber(-value, path)}`;
  const { digits, n } = shortestDigits(value);
  const k = digits.length;
  // Step 6: k ≤ n ≤ 21 → the digits followed by n−k zeros.
  if (k <= n && n <= 21) return digits + "0".repeat(n - k);
  // Step 7: 0 < n ≤ 21 → a decimal point after the first n digits.
  if (0 < n && n <= 21) return `${digits.slice(0, n)}.${digits.slice(n)}`;
  // Step 8: −6 < n ≤ 0 → "0." followed by −n zeros and the digits.
  if (-6 < n && n <= 0) return `0.${"0".repeat(-n)}${digits}`;
  // Steps 9–10: exponential form, e+ or e− with n−1 as the exponent.
  const exponent = n - 1;
  const sign = exponent < 0 ? "-" : "+";
  const mantissa = k === 1 ? digits : `${digits[0]}.${digits.slice(1)}`;
  return `${mantissa}e${sign}${Math.abs(exponent)}`;
}

/** The shortest decimal digits s (no trailing zeros) and n such that value = 0.s × 10^n. */
function shortestDigits(value: number): { digits: string; n: number } {
  const exp = value.toExponential();
  const e = exp.indexOf("e");
  const mantissa = exp.slice(0, e).replace(".", "");
  const digits = mantissa.replace(/0+$/, "") || "0";
  return { digits, n: Number(exp.slice(e + 1)) + 1 };
}
