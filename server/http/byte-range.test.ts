import { describe, expect, it } from "vitest";
import { ifNoneMatchHits, ifRangeHolds, parseByteRange } from "./byte-range.ts";

describe("parseByteRange (RFC 9110 §14.1.2)", () => {
  const size = 1000;
  const partial = (start: number, end: number) => ({ kind: "partial", range: { start, end } });
  const cases: [string | undefined, unknown][] = [
    [undefined, { kind: "full" }],
    ["bytes=0-99", partial(0, 99)],
    ["bytes=500-", partial(500, 999)],
    ["bytes=990-5000", partial(990, 999)],
    ["bytes=999-999", partial(999, 999)],
    ["bytes=-100", partial(900, 999)],
    ["bytes=-5000", partial(0, 999)],
    ["Bytes = 10-19 ", partial(10, 19)],
    ["bytes=1000-", { kind: "unsatisfiable" }],
    ["bytes=1000-2000", { kind: "unsatisfiable" }],
    ["bytes=-0", { kind: "unsatisfiable" }],
    ["bytes=99999999999999999999999-", { kind: "unsatisfiable" }],
    // Ignored, so the whole file is sent: invalid, another unit, several ranges, garbage.
    ["bytes=20-10", { kind: "full" }],
    ["items=0-10", { kind: "full" }],
    ["bytes=0-1,5-6", { kind: "full" }],
    ["bytes=abc", { kind: "full" }],
    ["bytes=", { kind: "full" }],
    ["bytes=1.5-2", { kind: "full" }],
    ["bytes=-1-2", { kind: "full" }],
  ];
  for (const [header, expected] of cases)
    it(`${JSON.stringify(header)} → ${JSON.stringify(expected)}`, () => {
      expect(parseByteRange(header, size)).toEqual(expected);
    });

  it("finds nothing satisfiable in an empty file", () => {
    expect(parseByteRange("bytes=0-", 0)).toEqual({ kind: "unsatisfiable" });
    expect(parseByteRange("bytes=-1", 0)).toEqual({ kind: "unsatisfiable" });
  });
});

describe("conditional headers", () => {
  const etag = '"abc123"';
  it("If-None-Match: *, the tag, a list holding it, its weak form (weak comparison, §13.1.2)", () => {
    expect(ifNoneMatchHits(undefined, etag)).toBe(false);
    expect(ifNoneMatchHits("*", etag)).toBe(true);
    expect(ifNoneMatchHits('"abc123"', etag)).toBe(true);
    expect(ifNoneMatchHits('"x", "abc123"', etag)).toBe(true);
    expect(ifNoneMatchHits('W/"abc123"', etag)).toBe(true);
    expect(ifNoneMatchHits('"abc124"', etag)).toBe(false);
    expect(ifNoneMatchHits("abc123", etag)).toBe(false);
  });

  it("If-Range: absent or the same strong tag keeps the range; another tag or a date drops it", () => {
    expect(ifRangeHolds(undefined, etag)).toBe(true);
    expect(ifRangeHolds('"abc123"', etag)).toBe(true);
    expect(ifRangeHolds('W/"abc123"', etag)).toBe(false);
    expect(ifRangeHolds('"other"', etag)).toBe(false);
    expect(ifRangeHolds("Wed, 21 Oct 2015 07:28:00 GMT", etag)).toBe(false);
  });
});
