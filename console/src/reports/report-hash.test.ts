import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { sha384Hex, verifyReport } from "./report-hash.ts";

// A report file as the API stores it: RFC 8785 canonical JSON, UTF-8 (here with a non-ASCII name).
const original = new TextEncoder().encode(
  '{"format":"caudal/anh-0651-daily","movements":{"totals_bbls":{"production":1250.5}},"project":{"name":"Campo Rubiáles"}}',
);
// The hash the API lists, computed by another implementation (node's OpenSSL).
const listed = createHash("sha384").update(original).digest("hex");

describe("a downloaded report checked against its listed SHA-384 with WebCrypto", () => {
  it("computes the same SHA-384 as OpenSSL, and the FIPS 180-4 value of 'abc'", async () => {
    expect(await sha384Hex(original)).toBe(listed);
    expect(await sha384Hex(new TextEncoder().encode("abc"))).toBe(
      "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7",
    );
  });

  it("an intact copy is verified, whatever the case of the listed hex", async () => {
    expect(await verifyReport(original.slice().buffer, listed)).toEqual({
      status: "verified",
      computed: listed,
      expected: listed,
    });
    expect((await verifyReport(original, listed.toUpperCase())).status).toBe("verified");
  });

  it("a tampered copy is a mismatch: one barrel changed, one byte appended, or truncated", async () => {
    const text = new TextDecoder().decode(original);
    const copies = [
      new TextEncoder().encode(text.replace("1250.5", "1250.6")),
      new Uint8Array([...original, 0x0a]),
      original.slice(0, -1),
    ];
    for (const tampered of copies) {
      const result = await verifyReport(tampered, listed);
      expect(result.status).toBe("mismatch");
      expect(result.computed).not.toBe(listed);
      expect(result.computed).toMatch(/^[0-9a-f]{96}$/);
    }
  });
});
