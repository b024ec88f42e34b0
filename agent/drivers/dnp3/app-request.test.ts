import { describe, expect, it } from "vitest";
import {
  buildClearRestart,
  buildConfirm,
  buildReadClasses,
  buildWriteTime,
  parseRequest,
} from "./app-request.ts";
import { hex, LINK_FRAMES, REQUESTS, toHex } from "./test-vectors.ts";

describe("master requests (IEEE 1815-2012 §4.2.2)", () => {
  it("reads class 0 alone, and classes 1–3", () => {
    expect(toHex(buildReadClasses(0, [0]))).toBe(REQUESTS.readClass0);
    expect(toHex(buildReadClasses(0, [1, 2, 3]))).toBe(REQUESTS.readClass123);
    expect(toHex(buildReadClasses(0, [1, 2]))).toBe(REQUESTS.readClass12);
  });

  it("builds the integrity poll (classes 1, 2, 3 then 0) of opendnp3's link vector, SEQ 3", () => {
    // The vector's user data is transport header C0 followed by the APDU.
    expect(`C0 ${toHex(buildReadClasses(3, [1, 2, 3, 0]))}`).toBe(
      LINK_FRAMES.confirmedUserDataFromMaster.userData,
    );
  });

  it("confirms solicited and unsolicited fragments", () => {
    expect(toHex(buildConfirm(0, false))).toBe(REQUESTS.confirmSeq0);
    expect(toHex(buildConfirm(1, false))).toBe(REQUESTS.confirmSeq1);
    expect(toHex(buildConfirm(0, true))).toBe(REQUESTS.unsolicitedConfirmSeq0);
  });

  it("clears the restart IIN by writing g80v1 index 7", () => {
    expect(toHex(buildClearRestart(0))).toBe(REQUESTS.clearRestart);
  });

  it("writes the time as g50v1 (48-bit ms since 1970, little-endian)", () => {
    expect(toHex(buildWriteTime(0, 0x1234))).toBe(REQUESTS.writeTime0x1234);
  });
});

describe("request parsing (the outstation side)", () => {
  it("finds the classes an integrity poll asks for", () => {
    const r = parseRequest(hex(LINK_FRAMES.confirmedUserDataFromMaster.userData).subarray(1));
    expect(r.ok && r.request.seq).toBe(3);
    expect(r.ok && r.request.func).toBe(1);
    expect(r.ok && r.request.classes).toEqual([1, 2, 3, 0]);
  });

  it("reads the clear-restart write and the time write", () => {
    const clear = parseRequest(hex(REQUESTS.clearRestart));
    expect(clear.ok && clear.request.clearsRestart).toBe(true);
    const time = parseRequest(hex(REQUESTS.writeTime0x1234));
    expect(time.ok && time.request.writtenTime).toBe(0x1234);
  });

  it("reads a confirm", () => {
    const c = parseRequest(hex(REQUESTS.unsolicitedConfirmSeq0));
    expect(c.ok && c.request.func).toBe(0);
    expect(c.ok && c.request.unsolicited).toBe(true);
  });

  it("refuses a request too short for its header", () => {
    expect(parseRequest(hex("C0")).ok).toBe(false);
  });
});
