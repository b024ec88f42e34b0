import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { canonicalBytes, canonicalize, JcsError, serializeNumber } from "./jcs.ts";

/** A double from its IEEE 754 bit pattern, as RFC 8785 Appendix B lists them. */
function fromBits(hex: string): number {
  const buf = Buffer.from(hex, "hex");
  return buf.readDoubleBE(0);
}

describe("RFC 8785 canonicalization", () => {
  it("§3.2.4: the sample input gives the sample output", () => {
    // The RFC's input, written as JSON text so that its number literals are parsed as in the RFC.
    const input = JSON.parse(
      `{
        "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
        "string": "\\u20ac$\\u000F\\u000aA'\\u0042\\u0022\\u005c\\\\\\"\\/",
        "literals": [null, true, false]
      }`,
    );
    expect(canonicalize(input)).toBe(
      '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],' +
        '"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
    );
  });

  it("§3.2.4: the sample output's UTF-8 bytes are those of the RFC's hex dump", () => {
    const input = {
      numbers: [333333333.3333333, 1e30, 4.5, 0.002, 1e-27],
      string: '€$\u000f\nA\'B"\\\\"/',
      literals: [null, true, false],
    };
    // The RFC's dump, verbatim.
    const hex = `
      7b 22 6c 69 74 65 72 61 6c 73 22 3a 5b 6e 75 6c 6c 2c 74 72
      75 65 2c 66 61 6c 73 65 5d 2c 22 6e 75 6d 62 65 72 73 22 3a
      5b 33 33 33 33 33 33 33 33 33 2e 33 33 33 33 33 33 33 2c 31
      65 2b 33 30 2c 34 2e 35 2c 30 2e 30 30 32 2c 31 65 2d 32 37
      5d 2c 22 73 74 72 69 6e 67 22 3a 22 e2 82 ac 24 5c 75 30 30
      30 66 5c 6e 41 27 42 5c 22 5c 5c 5c 5c 5c 22 2f 22 7d`;
    expect(canonicalBytes(input).toString("hex")).toBe(hex.replace(/\s+/g, ""));
  });

  it("§3.2.3: properties sort by UTF-16 code units, not code points", () => {
    const input = {
      "\u20ac": "Euro Sign",
      "\r": "Carriage Return",
      "\ufb33": "Hebrew Letter Dalet With Dagesh",
      "1": "One",
      "\ud83d\ude00": "Emoji: Grinning Face",
      "\u0080": "Control",
      "\u00f6": "Latin Small Letter O With Diaeresis",
    };
    expect(canonicalize(input)).toBe(
      '{"\\r":"Carriage Return","1":"One","\u0080":"Control","ö":"Latin Small Letter O With Diaeresis",' +
        '"€":"Euro Sign","😀":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
    );
  });

  it("sorts nested objects and keeps array order", () => {
    expect(canonicalize({ b: [3, { z: 1, a: 2 }, 1], a: { d: null, c: true } })).toBe(
      '{"a":{"c":true,"d":null},"b":[3,{"a":2,"z":1},1]}',
    );
    expect(canonicalize([])).toBe("[]");
    expect(canonicalize({})).toBe("{}");
  });

  it("§3.2.2.2: escapes only the control characters, quote and backslash", () => {
    expect(canonicalize("\u0000\u0001\b\t\n\u000b\f\r\u001f")).toBe(
      '"\\u0000\\u0001\\b\\t\\n\\u000b\\f\\r\\u001f"',
    );
    expect(canonicalize('a"b\\c/d\u007f\u2028é😀')).toBe('"a\\"b\\\\c/d\u007f\u2028é😀"');
  });

  it("refuses lone surrogates (I-JSON, RFC 7493 §2.1)", () => {
    expect(() => canonicalize("\ud800")).toThrow(JcsError);
    expect(() => canonicalize("x\udc00y")).toThrow(JcsError);
    expect(() => canonicalize({ "\ud83d": 1 })).toThrow(JcsError);
  });

  it("refuses values that are not JSON data", () => {
    for (const bad of [
      undefined,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      -Infinity,
      1n,
      new Date(0),
      () => 1,
    ]) {
      expect(() => canonicalize({ x: bad })).toThrow(JcsError);
    }
    expect(() => canonicalize(new Map())).toThrow(JcsError);
    expect(canonicalize(Object.assign(Object.create(null), { b: 1, a: 2 }))).toBe('{"a":2,"b":1}');
  });
});

describe("RFC 8785 Appendix B: number serialisation", () => {
  const table: [string, string][] = [
    ["0000000000000000", "0"],
    ["8000000000000000", "0"],
    ["0000000000000001", "5e-324"],
    ["8000000000000001", "-5e-324"],
    ["7fefffffffffffff", "1.7976931348623157e+308"],
    ["ffefffffffffffff", "-1.7976931348623157e+308"],
    ["4340000000000000", "9007199254740992"],
    ["c340000000000000", "-9007199254740992"],
    ["4430000000000000", "295147905179352830000"],
    ["44b52d02c7e14af5", "9.999999999999997e+22"],
    ["44b52d02c7e14af6", "1e+23"],
    ["44b52d02c7e14af7", "1.0000000000000001e+23"],
    ["444b1ae4d6e2ef4e", "999999999999999700000"],
    ["444b1ae4d6e2ef4f", "999999999999999900000"],
    ["444b1ae4d6e2ef50", "1e+21"],
    ["3eb0c6f7a0b5ed8c", "9.999999999999997e-7"],
    ["3eb0c6f7a0b5ed8d", "0.000001"],
    ["41b3de4355555553", "333333333.3333332"],
    ["41b3de4355555554", "333333333.33333325"],
    ["41b3de4355555555", "333333333.3333333"],
    ["41b3de4355555556", "333333333.3333334"],
    ["41b3de4355555557", "333333333.33333343"],
    ["becbf647612f3696", "-0.0000033333333333333333"],
    ["43143ff3c1cb0959", "1424953923781206.2"],
  ];
  it.each(table)("%s → %s", (bits, expected) => {
    expect(serializeNumber(fromBits(bits))).toBe(expected);
  });

  it("refuses NaN and Infinity (7fffffffffffffff, 7ff0000000000000)", () => {
    expect(() => serializeNumber(fromBits("7fffffffffffffff"))).toThrow(JcsError);
    expect(() => serializeNumber(fromBits("7ff0000000000000"))).toThrow(JcsError);
  });

  it("agrees with Number.prototype.toString on the layout boundaries", () => {
    const samples = [
      1e21,
      1e20,
      123e18,
      1.5e21,
      1e-6,
      1e-7,
      1.25e-7,
      0.1,
      0.5,
      12.5,
      100,
      1234567.125,
      2 ** 53 + 2,
    ];
    for (const x of samples) {
      expect(serializeNumber(x)).toBe(String(x));
      expect(serializeNumber(-x)).toBe(String(-x));
    }
  });

  it("agrees with Number.prototype.toString on 200,000 random doubles", () => {
    // A fixed seed keeps a failure reproducible.
    let state = 0x2545f4914f6cdd1dn;
    const next = () => {
      state ^= state << 13n;
      state ^= state >> 7n;
      state ^= state << 17n;
      state &= 0xffffffffffffffffn;
      return state;
    };
    const buf = Buffer.alloc(8);
    let checked = 0;
    while (checked < 200_000) {
      buf.writeBigUInt64BE(next());
      const x = buf.readDoubleBE(0);
      if (!Number.isFinite(x)) continue;
      const got = serializeNumber(x);
      if (got !== String(x)) expect(got).toBe(String(x));
      checked++;
    }
  });
});

describe("hashing canonical bytes", () => {
  it("the same data in any key order hashes the same", () => {
    const a = canonicalBytes({ x: 1, y: [1, 2], z: { b: "β", a: "α" } });
    const b = canonicalBytes({ z: { a: "α", b: "β" }, y: [1, 2], x: 1.0 });
    expect(createHash("sha384").update(a).digest("hex")).toBe(createHash("sha384").update(b).digest("hex"));
  });
});
