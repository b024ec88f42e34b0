import { objectSize } from "./objects.ts";

/**
 * Object headers (IEEE 1815-2012 §4.2.2.5–4.2.2.6): group, variation, qualifier, then a range
 * or a count, then the objects. The qualifier's low nibble is the range specifier (0/1/2:
 * start-stop of 1/2/4 bytes; 6: all; 7/8/9: count of 1/2/4 bytes); its next three bits the
 * index prefix (0: none; 1/2/3: index of 1/2/4 bytes).
 *
 * Every length is checked against the bytes left before anything is read, so a malformed
 * fragment ends in an error, never an exception or a long loop.
 */

export type ObjectItem = { index: number; data: Uint8Array };
export type ObjectHeader = { group: number; variation: number; qualifier: number; items: ObjectItem[] };
export type WalkResult = { headers: ObjectHeader[]; error?: string };

const WIDTHS = [1, 2, 4] as const;

class Cursor {
  readonly bytes: Uint8Array;
  at = 0;
  constructor(bytes: Uint8Array) {
    this.bytes = bytes;
  }
  get left(): number {
    return this.bytes.length - this.at;
  }
  /** Reads a little-endian unsigned integer of 1, 2 or 4 bytes; the caller checked `left`. */
  uint(width: number): number {
    let v = 0;
    for (let i = width - 1; i >= 0; i--) v = v * 256 + (this.bytes[this.at + i] ?? 0);
    this.at += width;
    return v;
  }
}

/**
 * Walks the object headers of a fragment. With `withData` false (READ requests) a header has
 * no objects after its range.
 */
export function walkObjects(bytes: Uint8Array, withData: boolean): WalkResult {
  const c = new Cursor(bytes);
  const headers: ObjectHeader[] = [];
  while (c.left > 0) {
    if (c.left < 3) return { headers, error: "object header is cut short" };
    const group = c.uint(1);
    const variation = c.uint(1);
    const qualifier = c.uint(1);
    const name = `g${group}v${variation} (qualifier 0x${qualifier.toString(16).padStart(2, "0")})`;
    const rangeCode = qualifier & 0x0f;
    const prefixCode = (qualifier >> 4) & 0x07;
    const header: ObjectHeader = { group, variation, qualifier, items: [] };
    let start = 0;
    let count: number;
    if (rangeCode <= 2) {
      const width = WIDTHS[rangeCode] ?? 1;
      if (c.left < width * 2) return { headers, error: `${name}: range is cut short` };
      start = c.uint(width);
      const stop = c.uint(width);
      if (stop < start) return { headers, error: `${name}: range start ${start} > stop ${stop}` };
      count = stop - start + 1;
      if (prefixCode !== 0) return { headers, error: `${name}: a range takes no index prefix` };
    } else if (rangeCode === 6) {
      if (withData) return { headers, error: `${name}: "all objects" carries no data` };
      headers.push(header);
      continue;
    } else if (rangeCode >= 7 && rangeCode <= 9) {
      const width = WIDTHS[rangeCode - 7] ?? 1;
      if (c.left < width) return { headers, error: `${name}: count is cut short` };
      count = c.uint(width);
    } else {
      return { headers, error: `${name}: unknown qualifier` };
    }
    if (!withData) {
      headers.push(header);
      continue;
    }
    const size = objectSize(group, variation);
    if (size === undefined) return { headers, error: `${name}: unknown object, cannot step over it` };
    if (size.kind === "packed") {
      if (rangeCode > 2) return { headers, error: `${name}: packed bits need a range qualifier` };
      const length = Math.ceil((count * size.bits) / 8);
      if (c.left < length) return { headers, error: `${name}: ${count} objects need ${length} bytes` };
      for (let i = 0; i < count; i++) {
        const bit = i * size.bits;
        const value = ((c.bytes[c.at + (bit >> 3)] ?? 0) >> (bit & 7)) & ((1 << size.bits) - 1);
        header.items.push({ index: start + i, data: Uint8Array.of(value) });
      }
      c.at += length;
    } else {
      const prefix = prefixCode === 0 ? 0 : (WIDTHS[prefixCode - 1] ?? 0);
      if (prefixCode > 3) return { headers, error: `${name}: unsupported index prefix` };
      const stride = prefix + size.size;
      if (stride === 0) return { headers, error: `${name}: object has no data` };
      if (c.left < count * stride)
        return { headers, error: `${name}: ${count} objects need ${count * stride} bytes, ${c.left} left` };
      for (let i = 0; i < count; i++) {
        const index = prefix === 0 ? start + i : c.uint(prefix);
        header.items.push({ index, data: c.bytes.subarray(c.at, c.at + size.size) });
        c.at += size.size;
      }
    }
    headers.push(header);
  }
  return { headers };
}
