import { describe, expect, it } from "vitest";
import { parseObjects, parseResponse } from "./app-response.ts";
import { BAD_OBJECTS, hex, LINK_FRAMES, RESPONSES, STATIC_RESPONSES } from "./test-vectors.ts";

const objectsOf = (text: string) => {
  const r = parseObjects(hex(text));
  expect(r.error).toBeUndefined();
  return r.measurements.map((m) => [m.type, m.index, m.value, m.flags]);
};

describe("response header (IEEE 1815-2012 §4.2.2.4, IIN §4.2.2.7)", () => {
  it("reads control, function and IIN of the outstation link vector", () => {
    const r = parseResponse(hex(LINK_FRAMES.confirmedUserDataFromOutstation.userData).subarray(1));
    if (!r.ok) throw new Error(r.error);
    expect(r.response.control).toEqual({ fir: true, fin: true, con: true, uns: false, seq: 3 });
    expect(r.response.unsolicited).toBe(false);
    expect(r.response.iin).toMatchObject({
      deviceRestart: true,
      needTime: true,
      class1Events: true,
      class2Events: true,
      class3Events: false,
    });
    expect(r.response.measurements.map((m) => [m.type, m.index, m.value, m.flags, m.event])).toEqual([
      ["binary", 0, 0, 0x01, true],
      ["binary", 1, 0, 0x01, true],
      ["binary", 2, 0, 0x01, true],
      ["binary", 3, 0, 0x01, true],
      ["analog", 0, 0, 0x01, true],
      ["analog", 1, 0, 0x01, true],
      ["binary", 0, 0, 0x01, false],
      ["binary", 1, 0, 0x01, false],
      ["binary", 2, 0, 0x01, false],
      ["binary", 3, 0, 0x01, false],
      ["analog", 0, 0, 0x01, false],
      ["analog", 1, 0, 0x01, false],
    ]);
  });

  it("reads a null unsolicited response with CON and restart", () => {
    const r = parseResponse(hex(RESPONSES.nullUnsolicitedRestart));
    if (!r.ok) throw new Error(r.error);
    expect(r.response.unsolicited).toBe(true);
    expect(r.response.control).toMatchObject({ con: true, uns: true, seq: 0 });
    expect(r.response.iin.deviceRestart).toBe(true);
  });

  it("reads NEED_TIME", () => {
    const r = parseResponse(hex(RESPONSES.needTimeWithDelay));
    expect(r.ok && r.response.iin.needTime).toBe(true);
    expect(r.ok && r.response.iin.deviceRestart).toBe(false);
  });

  it("refuses fewer than four bytes, and a request function", () => {
    expect(parseResponse(hex("C0 02 01")).ok).toBe(false);
    expect(parseResponse(hex("C0 02 01 02")).ok).toBe(false);
  });
});

describe("static objects (class 0)", () => {
  for (const [name, v] of Object.entries(STATIC_RESPONSES)) {
    it(`decodes ${name}`, () => {
      const r = parseResponse(hex(v.apdu));
      if (!r.ok) throw new Error(r.error);
      const type = name.startsWith("g30") ? "analog" : "counter";
      expect(r.response.measurements).toEqual([
        { type, index: 0, value: v.value, flags: v.flags, event: false },
      ]);
    });
  }

  it("decodes mixed g30v1 and g30v2 headers", () => {
    expect(objectsOf(hex2objects(RESPONSES.mixedAnalogs))).toEqual([
      ["analog", 0, 0, 0x02],
      ["analog", 1, 0, 0x02],
    ]);
  });

  it("decodes g1v2 over 1- and 2-byte ranges", () => {
    expect(objectsOf(RESPONSES.g1v2RangeObjects)).toEqual([
      ["binary", 3, 1, 0x81],
      ["binary", 4, 0, 0x01],
      ["binary", 5, 1, 0x81],
    ]);
    expect(objectsOf(RESPONSES.g1v2Range16Objects)).toEqual([["binary", 3, 1, 0x81]]);
  });

  it("decodes packed g1v1 (no flags: reported ONLINE)", () => {
    expect(objectsOf(RESPONSES.g1v1RangeObjects)).toEqual([
      ["binary", 3, 1, 0x01],
      ["binary", 4, 0, 0x01],
      ["binary", 5, 0, 0x01],
      ["binary", 6, 1, 0x01],
    ]);
    expect(objectsOf(hex2objects(RESPONSES.g1v1Packed))).toHaveLength(10);
  });
});

describe("event objects (classes 1–3)", () => {
  it("decodes g2v1 with 1- and 2-byte index prefixes", () => {
    expect(objectsOf(RESPONSES.g2v1Count8Objects)).toEqual([["binary", 9, 1, 0x81]]);
    expect(objectsOf(RESPONSES.g2v1Count16Objects)).toEqual([["binary", 9, 1, 0x81]]);
    expect(objectsOf(hex2objects(RESPONSES.g2v1TwoEvents))).toEqual([
      ["binary", 0, 1, 0x81],
      ["binary", 0, 0, 0x01],
    ]);
  });

  it("decodes g2v2 (with time)", () => {
    expect(objectsOf(RESPONSES.g2v2Objects)).toEqual([["binary", 0xaa, 1, 0x81]]);
  });

  it("decodes the SOE of g32v1 and g2v1 in order", () => {
    expect(objectsOf(hex2objects(RESPONSES.class1Soe))).toEqual([
      ["analog", 0x17, 0x1234, 0x01],
      ["binary", 0x10, 1, 0x81],
      ["analog", 0x17, 0x2222, 0x01],
    ]);
  });

  it("decodes g32v5 and g32v7, and the counters g22v1, g22v5, g22v6", () => {
    expect(objectsOf(hex2objects(RESPONSES.g32v5))).toEqual([["analog", 0, 0, 0x01]]);
    expect(objectsOf(hex2objects(RESPONSES.g32v7))).toEqual([["analog", 0, 0, 0x01]]);
    expect(objectsOf(hex2objects(RESPONSES.class2Analog))).toEqual([["analog", 0, 3, 0x01]]);
    expect(objectsOf(hex2objects(RESPONSES.class3Counter))).toEqual([["counter", 0, 7, 0x01]]);
    expect(objectsOf(hex2objects(RESPONSES.g22v1))).toEqual([["counter", 0, 0, 0x01]]);
    expect(objectsOf(hex2objects(RESPONSES.g22v5))).toEqual([["counter", 0, 23, 0x01]]);
    expect(objectsOf(hex2objects(RESPONSES.g22v6))).toEqual([["counter", 0, 23, 0x01]]);
  });

  // No public vector for these was found (opendnp3 and stepfunc test only v1, v2, v5, v7); the
  // layouts are IEEE 1815-2012 Table A-… as listed in stepfunc's codegen Group32.scala.
  it("decodes g32v3, g32v4 and g32v6 by their layouts", () => {
    expect(objectsOf("20 03 17 01 02 01 FF FF FF FF 00 00 00 00 00 00")).toEqual([["analog", 2, -1, 0x01]]);
    expect(objectsOf("20 04 17 01 02 01 FE FF 00 00 00 00 00 00")).toEqual([["analog", 2, -2, 0x01]]);
    expect(objectsOf("20 06 17 01 02 01 00 00 00 00 00 00 34 C0")).toEqual([["analog", 2, -20, 0x01]]);
  });
});

describe("malformed object data is refused, never thrown", () => {
  for (const [name, text] of Object.entries(BAD_OBJECTS)) {
    it(name, () => {
      const r = parseObjects(hex(text));
      expect(r.error).toBeTypeOf("string");
      expect(r.measurements).toEqual([]);
    });
  }

  it("keeps the points before an object it cannot size", () => {
    const r = parseObjects(hex(`${RESPONSES.g2v1Count8Objects} FE 01 17 01 00`));
    expect(r.error).toMatch(/g254v1/);
    expect(r.measurements).toHaveLength(1);
  });
});

/** The object data of a whole response APDU (after control, function and IIN). */
function hex2objects(apdu: string): string {
  return apdu.split(" ").slice(4).join(" ");
}
