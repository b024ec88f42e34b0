import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { KeyedDebounce } from "./keyed-debounce.ts";

describe("KeyedDebounce", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("fires once per key, delayMs after the last touch of a burst", () => {
    const fired: string[] = [];
    const d = new KeyedDebounce(2_000, (k) => fired.push(k));
    for (let i = 0; i < 20; i++) {
      d.touch("a");
      vi.advanceTimersByTime(500);
    }
    // "a" was last touched 500 ms ago; "b" now.
    d.touch("b");
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(1_499);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(fired).toEqual(["a"]);
    vi.advanceTimersByTime(500);
    expect(fired).toEqual(["a", "b"]);
    expect(d.pending).toBe(0);
  });

  it("clear() drops every pending run", () => {
    const fired: string[] = [];
    const d = new KeyedDebounce(2_000, (k) => fired.push(k));
    d.touch("a");
    d.touch("b");
    expect(d.pending).toBe(2);
    d.clear();
    expect(d.pending).toBe(0);
    vi.advanceTimersByTime(10_000);
    expect(fired).toEqual([]);
  });
});
