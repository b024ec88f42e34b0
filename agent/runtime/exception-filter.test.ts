import { describe, expect, it } from "vitest";
import { ExceptionFilter, HEARTBEAT_MS } from "./exception-filter.ts";

describe("ExceptionFilter", () => {
  it("records the first value, then only moves beyond the deadband, measured from the last recorded value", () => {
    const f = new ExceptionFilter();
    expect(f.accept("a", 10, 1, 0)).toBe(true);
    expect(f.accept("a", 10.9, 1, 1000)).toBe(false);
    // 11.5 is 1.5 from 10 (the last recorded), though only 0.6 from 10.9 (the last seen).
    expect(f.accept("a", 11.5, 1, 2000)).toBe(true);
    expect(f.accept("a", 10.6, 1, 3000)).toBe(false);
    expect(f.accept("a", 10.4, 1, 4000)).toBe(true);
  });

  it("records a flat value again once HEARTBEAT_MS passed since the last recorded one", () => {
    const f = new ExceptionFilter();
    expect(f.accept("a", 5, 0, 0)).toBe(true);
    expect(f.accept("a", 5, 0, HEARTBEAT_MS - 1)).toBe(false);
    expect(f.accept("a", 5, 0, HEARTBEAT_MS)).toBe(true);
    expect(f.accept("a", 5, 0, 2 * HEARTBEAT_MS - 1)).toBe(false);
    expect(f.accept("a", 5, 0, 2 * HEARTBEAT_MS)).toBe(true);
  });

  it("keeps variables apart and forgets those no longer configured", () => {
    const f = new ExceptionFilter();
    expect(f.accept("a", 1, 0, 0)).toBe(true);
    expect(f.accept("b", 1, 0, 0)).toBe(true);
    expect(f.accept("a", 1, 0, 1)).toBe(false);
    f.retain(new Set(["b"]));
    expect(f.accept("a", 1, 0, 2)).toBe(true);
    expect(f.accept("b", 1, 0, 2)).toBe(false);
  });
});
