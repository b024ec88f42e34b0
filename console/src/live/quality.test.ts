import { describe, expect, it } from "vitest";
import { qualityOf } from "./quality.ts";

describe("a live value's quality", () => {
  const base = { enabled: true, deviceState: "ok" as const, pollMs: 1000, ageMs: 2000 };
  it("is good while fresh, stale after three poll intervals (at least a minute)", () => {
    expect(qualityOf(base)).toBe("good");
    expect(qualityOf({ ...base, ageMs: 59_000 })).toBe("good");
    expect(qualityOf({ ...base, ageMs: 61_000 })).toBe("stale");
    expect(qualityOf({ ...base, pollMs: 60_000, ageMs: 179_000 })).toBe("good");
    expect(qualityOf({ ...base, pollMs: 60_000, ageMs: 181_000 })).toBe("stale");
    expect(qualityOf({ ...base, pollMs: null, deviceState: null, ageMs: 14 * 60_000 })).toBe("good");
    expect(qualityOf({ ...base, pollMs: null, deviceState: null, ageMs: 16 * 60_000 })).toBe("stale");
  });
  it("follows the agent's device state, and says when there is nothing yet", () => {
    expect(qualityOf({ ...base, deviceState: "failing" })).toBe("comm_error");
    expect(qualityOf({ ...base, deviceState: "unsupported" })).toBe("comm_error");
    expect(qualityOf({ ...base, deviceState: "disabled" })).toBe("disabled");
    expect(qualityOf({ ...base, enabled: false })).toBe("disabled");
    expect(qualityOf({ ...base, ageMs: null })).toBe("no_data");
  });
});
