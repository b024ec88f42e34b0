import { describe, expect, it } from "vitest";
import { hex, TRANSPORT, toHex } from "./test-vectors.ts";
import { MAX_SEGMENT_PAYLOAD, segmentApdu, TransportReassembler } from "./transport.ts";

describe("transport function (IEEE 1815-2012 §8.2)", () => {
  it("sends a short APDU as one FIR/FIN segment", () => {
    const { segments, nextSeq } = segmentApdu(hex(TRANSPORT.singleSegment.apdu), 0);
    expect(segments.map(toHex)).toEqual([TRANSPORT.singleSegment.segment]);
    expect(nextSeq).toBe(1);
  });

  it("splits a long APDU into 249-byte payloads with rising SEQ that wraps at 64", () => {
    const apdu = Uint8Array.from({ length: 600 }, (_, i) => i & 0xff);
    const { segments, nextSeq } = segmentApdu(apdu, 63);
    expect(segments.map((s) => s[0])).toEqual([0x40 | 63, 0x00, 0x80 | 1]);
    expect(segments.map((s) => s.length - 1)).toEqual([MAX_SEGMENT_PAYLOAD, MAX_SEGMENT_PAYLOAD, 102]);
    expect(nextSeq).toBe(2);
    const rx = new TransportReassembler();
    const out = segments.map((s) => rx.push(s));
    expect(out.slice(0, 2)).toEqual([undefined, undefined]);
    expect(out[2]).toEqual(apdu);
  });

  it("reassembles segments of varying size", () => {
    const rx = new TransportReassembler();
    const out = TRANSPORT.twoSegments.segments.map((s) => rx.push(hex(s)));
    expect(out[0]).toBeUndefined();
    expect(toHex(out[1] ?? new Uint8Array(0))).toBe(TRANSPORT.twoSegments.apdu);
  });

  it("accepts a header-only final segment", () => {
    const rx = new TransportReassembler();
    const out = TRANSPORT.headerOnlyFinal.segments.map((s) => rx.push(hex(s)));
    expect(toHex(out[1] ?? new Uint8Array(0))).toBe(TRANSPORT.headerOnlyFinal.apdu);
  });

  it("ignores a segment without FIR when nothing is in progress", () => {
    const rx = new TransportReassembler();
    expect(rx.push(hex(TRANSPORT.noFir))).toBeUndefined();
    expect(rx.errors.ignored).toBe(1);
  });

  it("drops the partial APDU on a sequence gap", () => {
    const rx = new TransportReassembler();
    const out = TRANSPORT.wrongSequence.map((s) => rx.push(hex(s)));
    expect(out).toEqual([undefined, undefined]);
    expect(rx.errors.ignored).toBe(1);
  });

  it("starts over on a new FIR", () => {
    const rx = new TransportReassembler();
    const out = TRANSPORT.newFir.segments.map((s) => rx.push(hex(s)));
    expect(toHex(out[1] ?? new Uint8Array(0))).toBe(TRANSPORT.newFir.apdu);
    expect(rx.errors.discarded).toBe(1);
  });

  it("refuses an APDU larger than its limit and recovers", () => {
    const rx = new TransportReassembler(4);
    expect(rx.push(hex("40 11 22 33"))).toBeUndefined();
    expect(rx.push(hex("81 44 55"))).toBeUndefined();
    expect(rx.errors.overflow).toBe(1);
    expect(toHex(rx.push(hex("C2 77")) ?? new Uint8Array(0))).toBe("77");
  });
});
