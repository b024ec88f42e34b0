import { describe, expect, it } from "vitest";
import { FrameQueue } from "./frame-queue.ts";

const frame = (text: string) => Buffer.from(text);
const drain = (q: FrameQueue) => {
  const out: string[] = [];
  for (let f = q.shift(); f; f = q.shift()) out.push(f.toString());
  return out;
};

describe("FrameQueue", () => {
  it("is first in, first out", () => {
    const q = new FrameQueue(4, 1024);
    for (const s of ["a", "b", "c"]) q.push(frame(s));
    expect(q.length).toBe(3);
    expect(q.bytes).toBe(3);
    expect(drain(q)).toEqual(["a", "b", "c"]);
    expect(q.bytes).toBe(0);
  });

  it("drops the oldest frames beyond its frame count and counts them", () => {
    const q = new FrameQueue(3, 1024);
    for (const s of ["1", "2", "3", "4", "5"]) q.push(frame(s));
    expect(q.dropped).toBe(2);
    expect(drain(q)).toEqual(["3", "4", "5"]);
    expect(q.takeDropped()).toBe(2);
    expect(q.dropped).toBe(0);
  });

  it("drops the oldest frames beyond its byte budget", () => {
    const q = new FrameQueue(100, 10);
    q.push(frame("aaaa"));
    q.push(frame("bbbb"));
    q.push(frame("cccc"));
    expect(q.bytes).toBe(8);
    expect(q.takeDropped()).toBe(1);
    expect(drain(q)).toEqual(["bbbb", "cccc"]);
  });

  it("keeps a single frame larger than the budget, alone", () => {
    const q = new FrameQueue(100, 10);
    q.push(frame("small"));
    q.push(frame("x".repeat(50)));
    expect(q.length).toBe(1);
    expect(q.dropped).toBe(1);
    expect(q.bytes).toBe(50);
  });

  it("wraps around its ring many times without losing order", () => {
    const q = new FrameQueue(5, 1 << 20);
    const seen: string[] = [];
    for (let i = 0; i < 1000; i++) {
      q.push(frame(String(i)));
      if (i % 3 === 0) seen.push(...drain(q));
    }
    seen.push(...drain(q));
    expect(seen.map(Number)).toEqual([...seen.map(Number)].sort((x, y) => x - y));
    expect(seen.length + q.takeDropped()).toBe(1000);
  });

  it("grows past its initial ring up to its frame count, keeping order", () => {
    const q = new FrameQueue(100, 1 << 20);
    q.push(frame("x"));
    q.shift();
    for (let i = 0; i < 150; i++) q.push(frame(String(i)));
    expect(q.length).toBe(100);
    expect(q.takeDropped()).toBe(50);
    expect(drain(q).map(Number)).toEqual(Array.from({ length: 100 }, (_, i) => i + 50));
  });

  it("clear() empties it but keeps the untold drop count", () => {
    const q = new FrameQueue(1, 1024);
    q.push(frame("a"));
    q.push(frame("b"));
    q.clear();
    expect(q.length).toBe(0);
    expect(q.bytes).toBe(0);
    expect(q.dropped).toBe(1);
  });

  it("refuses a capacity below one", () => {
    expect(() => new FrameQueue(0, 10)).toThrow(RangeError);
  });
});
