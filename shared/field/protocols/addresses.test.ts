import { describe, expect, it } from "vitest";
import { parseDnp3Address } from "./dnp3.ts";
import { parseNodeId } from "./opc-ua.ts";
import { parseS7Address } from "./s7.ts";

/** What the drivers get from each address grammar (issue 9 §1). */
describe("address grammars", () => {
  it("S7 (nodes7 syntax): area, data block, type, offsets", () => {
    const s7 = (text: string) => {
      const r = parseS7Address(text);
      return r.ok ? r.value : r.error;
    };
    expect(s7("DB1,REAL0")).toEqual({
      area: "DB",
      db: 1,
      type: "REAL",
      byteOffset: 0,
      bit: null,
      length: null,
    });
    expect(s7("db2,x12.7")).toMatchObject({ area: "DB", db: 2, type: "BOOL", byteOffset: 12, bit: 7 });
    expect(s7("DB1,S20.10")).toMatchObject({ type: "STRING", byteOffset: 20, length: 10 });
    expect(s7("DB1,DI8")).toMatchObject({ type: "DINT", byteOffset: 8 });
    expect(s7("MW20")).toEqual({
      area: "M",
      db: null,
      type: "WORD",
      byteOffset: 20,
      bit: null,
      length: null,
    });
    expect(s7("MR4")).toMatchObject({ area: "M", type: "REAL" });
    expect(s7("I0.1")).toMatchObject({ area: "I", type: "BOOL", byteOffset: 0, bit: 1 });
    expect(s7("Q0.0")).toMatchObject({ area: "Q", type: "BOOL", bit: 0 });
    expect(s7("DB1,REAL0.20")).toMatch(/arrays/);
    expect(s7("DB1,X3")).toMatch(/bit/);
    expect(s7("DB1,S20")).toMatch(/length/);
    expect(s7("DB1,S20.255")).toMatch(/between 1 and 254/);
    expect(s7("DB1,INT70000")).toMatch(/at most 65535/);
    expect(s7("M10")).toMatch(/bit/);
  });

  it("OPC UA NodeIds (Part 6 §5.3.1.10)", () => {
    expect(parseNodeId("ns=2;s=Well1.Pressure")).toEqual({
      ok: true,
      value: { namespace: 2, kind: "s", identifier: "Well1.Pressure" },
    });
    expect(parseNodeId("i=85")).toEqual({ ok: true, value: { namespace: 0, kind: "i", identifier: "85" } });
    expect(parseNodeId("nsu=http://caudal.example/UA;i=7")).toMatchObject({
      ok: true,
      value: { namespace: "http://caudal.example/UA" },
    });
    expect(parseNodeId("ns=3;s=")).toMatchObject({ ok: false });
    expect(parseNodeId("ns=1;i=4294967296")).toMatchObject({ ok: false });
    expect(parseNodeId("ns=1;b=not base64!")).toMatchObject({ ok: false });
  });

  it("DNP3 points g<group>:<index>", () => {
    expect(parseDnp3Address("g30:3")).toEqual({ ok: true, value: { group: 30, index: 3 } });
    expect(parseDnp3Address("g1:0")).toEqual({ ok: true, value: { group: 1, index: 0 } });
    expect(parseDnp3Address("g20:65535")).toEqual({ ok: true, value: { group: 20, index: 65535 } });
    expect(parseDnp3Address("G30:3")).toMatchObject({ ok: false });
    expect(parseDnp3Address("g30: 3")).toMatchObject({ ok: false });
  });
});
