import { describe, expect, it } from "vitest";
import { parsePointAddress } from "./address.ts";

describe("g<group>:<index> point addresses", () => {
  it("maps static and event groups of one point type to the same point", () => {
    expect(parsePointAddress("g30:5")).toEqual({ ok: true, point: { type: "analog", index: 5 } });
    expect(parsePointAddress("g32:5")).toEqual({ ok: true, point: { type: "analog", index: 5 } });
    expect(parsePointAddress("g1:0")).toEqual({ ok: true, point: { type: "binary", index: 0 } });
    expect(parsePointAddress("g2:0")).toEqual({ ok: true, point: { type: "binary", index: 0 } });
    expect(parsePointAddress("g20:65535")).toEqual({ ok: true, point: { type: "counter", index: 65535 } });
    expect(parsePointAddress("G22:7")).toEqual({ ok: true, point: { type: "counter", index: 7 } });
  });

  it.each([
    [null, /missing/],
    ["", /missing/],
    ["30:1", /g<group>:<index>/],
    ["g30", /g<group>:<index>/],
    ["g30:", /g<group>:<index>/],
    ["g30:-1", /g<group>:<index>/],
    ["g30:1.5", /g<group>:<index>/],
    ["g30: 1", /g<group>:<index>/],
    ["g12:1", /group 12 is not read/],
    ["g30:65536", /index 65536 is out of range/],
    ["g30:00000000000000000001", /g<group>:<index>/],
  ])("refuses %j", (input, message) => {
    const r = parsePointAddress(input);
    expect(r.ok).toBe(false);
    expect(r.ok ? "" : r.error).toMatch(message);
  });
});
