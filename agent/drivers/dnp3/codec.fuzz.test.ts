import { describe, expect, it } from "vitest";
import { parseRequest } from "./app-request.ts";
import { parseResponse } from "./app-response.ts";
import { encodeLinkFrame, LinkFrameReader, PRIMARY } from "./link-frame.ts";
import { hex, LINK_FRAMES, RESPONSES } from "./test-vectors.ts";
import { TransportReassembler } from "./transport.ts";

/** A small deterministic PRNG (mulberry32), so a failure can be replayed from its seed. */
function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const bytesOf = (rand: () => number, n: number) =>
  Uint8Array.from({ length: n }, () => Math.floor(rand() * 256));

describe("codec fed random bytes", () => {
  it("never throws, and keeps reading valid frames after garbage", () => {
    const rand = prng(1815);
    const reader = new LinkFrameReader();
    const rx = new TransportReassembler();
    let frames = 0;
    for (let round = 0; round < 2000; round++) {
      const garbage = bytesOf(rand, Math.floor(rand() * 300));
      // Random bytes that start like a frame reach the CRC and length checks more often.
      if (rand() < 0.3) garbage.set([0x05, 0x64].slice(0, garbage.length));
      for (const f of reader.push(garbage)) {
        frames += 1;
        const apdu = rx.push(f.userData);
        if (apdu) {
          parseResponse(apdu);
          parseRequest(apdu);
        }
      }
    }
    // A valid frame after all that garbage is still found.
    const good = reader.push(hex(`00 00 ${LINK_FRAMES.confirmedUserDataFromOutstation.frame}`));
    expect(good.some((f) => f.func === PRIMARY.CONFIRMED_USER_DATA)).toBe(true);
    expect(frames).toBeGreaterThanOrEqual(0);
  });

  it("parses random and mutated APDUs without throwing", () => {
    const rand = prng(20);
    const seeds = [
      RESPONSES.class1Soe,
      RESPONSES.mixedAnalogs,
      LINK_FRAMES.confirmedUserDataFromOutstation.userData,
    ];
    for (let round = 0; round < 5000; round++) {
      const base = seeds[round % seeds.length] ?? "";
      const apdu = rand() < 0.5 ? bytesOf(rand, Math.floor(rand() * 64)) : hex(base);
      for (let i = 0; i < 3; i++) {
        const at = Math.floor(rand() * apdu.length);
        if (apdu.length > 0) apdu[at] = Math.floor(rand() * 256);
      }
      const cut = apdu.subarray(0, Math.floor(rand() * (apdu.length + 1)));
      expect(() => parseResponse(cut)).not.toThrow();
      expect(() => parseRequest(cut)).not.toThrow();
    }
  });

  it("refuses a huge count cheaply (4-byte count, no data)", () => {
    const started = performance.now();
    const r = parseResponse(hex("C0 81 00 00 1E 01 39 FF FF FF FF"));
    expect(r.ok && r.response.error).toMatch(/need/);
    expect(performance.now() - started).toBeLessThan(50);
  });

  it("round-trips random user data through a frame", () => {
    const rand = prng(7);
    const reader = new LinkFrameReader();
    for (let n = 1; n <= 250; n += 7) {
      const userData = bytesOf(rand, n);
      const frame = encodeLinkFrame({
        fromMaster: true,
        primary: true,
        fcb: false,
        fcv: false,
        func: PRIMARY.UNCONFIRMED_USER_DATA,
        destination: 10,
        source: 1,
        userData,
      });
      expect(reader.push(frame)[0]?.userData).toEqual(userData);
    }
  });
});
