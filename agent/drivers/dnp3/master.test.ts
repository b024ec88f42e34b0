import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Master } from "./master.ts";
import type { Measurement } from "./objects.ts";
import { hex, LINK_FRAMES, REQUESTS, RESPONSES, toHex } from "./test-vectors.ts";

/** A master wired to arrays: what it sent, what it applied, how often it timed out. */
function harness() {
  const sent: string[] = [];
  const applied: Measurement[] = [];
  const timeouts: number[] = [];
  const master = new Master(
    { integrityPollIntervalMs: 60_000, eventPollIntervalMs: 1_000, timeoutMs: 500, now: () => 0x1234 },
    {
      send: (apdu) => sent.push(toHex(apdu)),
      onMeasurements: (ms) => applied.push(...ms),
      onTimeout: (n) => timeouts.push(n),
    },
  );
  /** Feeds a recorded response with its SEQ set to `seq` (recorded vectors carry their own). */
  const reply = (recorded: string, seq: number) => {
    const bytes = hex(recorded);
    bytes[0] = ((bytes[0] ?? 0) & 0xf0) | seq;
    master.receive(bytes);
  };
  return { master, sent, applied, timeouts, reply };
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe("DNP3 master session", () => {
  it("starts with an integrity poll and resolves when it is answered", async () => {
    const h = harness();
    const started = h.master.start();
    expect(h.sent).toEqual(["C0 01 3C 02 06 3C 03 06 3C 04 06 3C 01 06"]);
    h.reply(RESPONSES.solicitedWithData, 0);
    await started;
    expect(h.applied).toEqual([{ type: "binary", index: 2, value: 1, flags: 0x81, event: false }]);
    h.master.stop();
  });

  it("confirms each fragment of a multi-fragment response that asks (CON), with its SEQ", async () => {
    const h = harness();
    const started = h.master.start();
    RESPONSES.class0FourFragments.forEach((f) => {
      h.master.receive(hex(f));
    });
    await started;
    // The recorded fragments carry IIN1 DEVICE_RESTART, so a clear-restart write (SEQ 1) follows.
    expect(h.sent.slice(1)).toEqual(["C0 00", "C1 00", "C2 00", toHex(withSeq(REQUESTS.clearRestart, 1))]);
    expect(h.applied.map((m) => m.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    h.master.stop();
  });

  it("on DEVICE_RESTART clears the restart IIN, then polls integrity again", async () => {
    const h = harness();
    const started = h.master.start();
    h.reply(RESPONSES.emptyWithRestart, 0);
    await started;
    expect(h.sent[1]).toBe(toHex(withSeq(REQUESTS.clearRestart, 1)));
    h.reply("C0 81 00 00", 1);
    expect(h.sent[2]).toBe("C2 01 3C 02 06 3C 03 06 3C 04 06 3C 01 06");
    h.reply("C0 81 00 00", 2);
    expect(h.sent).toHaveLength(3);
    h.master.stop();
  });

  it("confirms a null unsolicited restart with UNS set and acts on it", async () => {
    const h = harness();
    const started = h.master.start();
    h.reply("C0 81 00 00", 0);
    await started;
    h.master.receive(hex(RESPONSES.nullUnsolicitedRestart));
    expect(h.sent[1]).toBe(REQUESTS.unsolicitedConfirmSeq0);
    expect(h.sent[2]).toBe(toHex(withSeq(REQUESTS.clearRestart, 1)));
    h.master.stop();
  });

  it("on NEED_TIME writes the time as g50v1", async () => {
    const h = harness();
    const started = h.master.start();
    h.reply(RESPONSES.needTimeWithDelay, 0);
    await started;
    expect(h.sent[1]).toBe(toHex(withSeq(REQUESTS.writeTime0x1234, 1)));
    h.master.stop();
  });

  it("handles the restart, need-time and events of the outstation link vector in one response", async () => {
    const h = harness();
    const started = h.master.start();
    h.master.receive(hex(LINK_FRAMES.confirmedUserDataFromOutstation.userData).subarray(1)); // SEQ 3: not ours
    expect(h.master.unexpectedFragments).toBe(1);
    h.reply(toHexApdu(LINK_FRAMES.confirmedUserDataFromOutstation.userData), 0);
    await started;
    // CON → confirm SEQ 0; restart → clear, integrity; need time → time sync.
    expect(h.sent.slice(1, 3)).toEqual(["C0 00", toHex(withSeq(REQUESTS.clearRestart, 1))]);
    h.reply("C0 81 10 00", 1);
    expect(h.sent[3]).toBe("C2 01 3C 02 06 3C 03 06 3C 04 06 3C 01 06");
    h.reply("C0 81 10 00", 2);
    expect(h.sent[4]).toBe(toHex(withSeq(REQUESTS.writeTime0x1234, 3)));
    expect(h.applied).toHaveLength(12);
    h.master.stop();
  });

  it("polls events at their interval", async () => {
    const h = harness();
    const started = h.master.start();
    h.reply("C0 81 00 00", 0);
    await started;
    await vi.advanceTimersByTimeAsync(1_000);
    expect(h.sent[1]).toBe("C1 01 3C 02 06 3C 03 06 3C 04 06");
    h.reply(RESPONSES.class1Soe, 1);
    expect(h.sent[2]).toBe("C1 00");
    expect(h.applied.map((m) => [m.type, m.index, m.value])).toEqual([
      ["analog", 0x17, 0x1234],
      ["binary", 0x10, 1],
      ["analog", 0x17, 0x2222],
    ]);
    h.master.stop();
  });

  it("times out an unanswered request, reports it, and ignores the late answer", async () => {
    const h = harness();
    const started = h.master.start();
    const outcome = started.catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(500);
    expect(String(await outcome)).toContain("no response within 500 ms");
    expect(h.timeouts).toEqual([1]);
    expect(h.master.silent).toBe(true);
    h.reply(RESPONSES.solicitedWithData, 0);
    expect(h.applied).toEqual([]);
    expect(h.master.unexpectedFragments).toBe(1);
    h.master.stop();
  });
});

function withSeq(text: string, seq: number): Uint8Array {
  const bytes = hex(text);
  bytes[0] = ((bytes[0] ?? 0) & 0xf0) | seq;
  return bytes;
}

/** The APDU of a link vector's user data (its first byte is the transport header). */
function toHexApdu(userData: string): string {
  return userData.split(" ").slice(1).join(" ");
}
