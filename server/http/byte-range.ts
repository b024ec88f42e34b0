/** One byte range, both ends inclusive (RFC 9110 §14.1.2). */
export type ByteRange = { start: number; end: number };

/**
 * What a Range header asks of a representation of `size` bytes:
 * - full: no Range, or one this server ignores (another unit, a malformed or invalid spec, several
 *   ranges: RFC 9110 §14.2 lets a server ignore Range and answer 200);
 * - partial: one satisfiable range, clamped to the representation (206);
 * - unsatisfiable: a single range that starts past the end, or a zero-length suffix (416, §15.5.17).
 */
export type RangeRequest =
  | { kind: "full" }
  | { kind: "partial"; range: ByteRange }
  | { kind: "unsatisfiable" };

const FULL = { kind: "full" } as const;
const UNSATISFIABLE = { kind: "unsatisfiable" } as const;

/** Parses `Range: bytes=first-last`, `bytes=first-` and `bytes=-suffix` (RFC 9110 §14.1.1). */
export function parseByteRange(header: string | undefined, size: number): RangeRequest {
  if (header === undefined) return FULL;
  // The range unit is case-insensitive (§14.1); whitespace around the spec is allowed (OWS).
  const spec = /^\s*bytes\s*=\s*([^,]*?)\s*$/i.exec(header)?.[1];
  if (spec === undefined) return FULL;
  const closed = /^(\d+)-(\d*)$/.exec(spec);
  if (closed) {
    const first = Number(closed[1]);
    const last = closed[2] === "" ? Number.POSITIVE_INFINITY : Number(closed[2]);
    // §14.1.1: last-pos below first-pos makes the spec invalid, so Range is ignored.
    if (last < first) return FULL;
    if (first >= size) return UNSATISFIABLE;
    return { kind: "partial", range: { start: first, end: Math.min(last, size - 1) } };
  }
  const suffix = /^-(\d+)$/.exec(spec);
  if (suffix) {
    const length = Number(suffix[1]);
    if (length === 0 || size === 0) return UNSATISFIABLE;
    return { kind: "partial", range: { start: Math.max(0, size - length), end: size - 1 } };
  }
  return FULL;
}

/**
 * RFC 9110 §13.1.5: a Range is honoured only while If-Range, when sent, names the current
 * representation. It is a strong comparison; a date never matches here (no Last-Modified is sent).
 */
export function ifRangeHolds(ifRange: string | undefined, etag: string): boolean {
  return ifRange === undefined || ifRange.trim() === etag;
}

/** RFC 9110 §13.1.2: `*`, or any listed entity tag equal to `etag` by the weak comparison. */
export function ifNoneMatchHits(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  if (ifNoneMatch.trim() === "*") return true;
  const opaque = etag.replace(/^W\//, "");
  return ifNoneMatch.split(",").some((tag) => tag.trim().replace(/^W\//, "") === opaque);
}
