import { describe, expect, it } from "vitest";
import { canonicalBytes } from "../../../shared/jcs.ts";
import { gapCountOf } from "./compliance.ts";

describe("gapCountOf", () => {
  it("reads data_quality.gap_count from canonical bytes", () => {
    const content = {
      alarms: { entries: [{ message: '"data_quality":{"complete":true,"gap_count":99' }] },
      data_quality: { gaps: [], series_with_gaps: 3, gap_minutes: 5, gap_count: 7, complete: false },
      zz: 1,
    };
    expect(gapCountOf(canonicalBytes(content))).toBe(7);
    expect(gapCountOf(canonicalBytes({ data_quality: { complete: true, gap_count: 0 } }))).toBe(0);
  });

  it("falls back to parsing when the bytes are laid out otherwise", () => {
    expect(gapCountOf(Buffer.from('{ "data_quality": { "gap_count": 4 } }'))).toBe(4);
    expect(gapCountOf(Buffer.from("{}"))).toBe(0);
  });
});
