import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Seeded } from "../../server/testing/codec/seeded.ts";
import {
  decodeTelemetryFrame,
  encodeTelemetryFrame,
  FRAME_MAGIC,
  isTelemetryFrame,
  uuidValid,
} from "./telemetry-frame.ts";
import { type Payload, payloads } from "./topics.ts";

type Batch = Payload<"telemetry">;

const alarm = {
  id: randomUUID(),
  event: "raised" as const,
  rule_id: randomUUID(),
  asset_id: randomUUID(),
  variable: "casing",
  value: 812,
  alarm_type: "high" as const,
  severity: "warning" as const,
  message: "casing above 800 psi",
  at: 1_750_000_000_000,
};

/** A batch of random shape: units absent, empty or set, names in several scripts, edge values. */
function randomBatch(r: Seeded): Batch {
  const names = ["flow", "presión", "温度", "level 2", "x".repeat(128), "ñ".repeat(128), "a"];
  const values = [0, -0, 1e15, -1e15, 0.1, Math.fround(37.2), 5e-324, 123456.789, -42];
  const assets = [randomUUID(), randomUUID()];
  const series = Array.from({ length: r.int(0, 6) }, () => {
    const points = Array.from(
      { length: r.int(1, 40) },
      () =>
        [
          r.pick([0, r.int(0, 2 ** 31), Number.MAX_SAFE_INTEGER]),
          r.pick([...values, r.gaussian() * 1e6]),
        ] as [number, number],
    );
    const unit = [undefined, "", "psi", "m³/d", "°C"][r.int(0, 4)];
    const base = { asset_id: r.pick(assets), variable: r.pick(names), points };
    return unit === undefined ? base : { ...base, unit };
  });
  const alarms = series.length === 0 || r.next() < 0.3 ? [alarm] : [];
  return {
    agent_id: randomUUID(),
    seq: r.int(1, 2 ** 40),
    lane: r.pick(["live", "backlog"] as const),
    series,
    alarms,
  };
}

/** The fields of a sound frame for `batch`, with `patch` applied at byte offsets. */
function patched(batch: Batch, patch: (frame: Buffer) => void): Buffer {
  const frame = encodeTelemetryFrame(batch);
  patch(frame);
  return frame;
}

const one = (over: Partial<Batch["series"][number]> = {}): Batch => ({
  agent_id: randomUUID(),
  seq: 7,
  lane: "live",
  series: [{ asset_id: randomUUID(), variable: "flow", points: [[1_750_000_000_000, 12.5]], ...over }],
  alarms: [],
});

describe("telemetry frames (binary batches)", () => {
  it("reads back every batch exactly as the JSON schema reads its JSON (seeded)", () => {
    const r = new Seeded(13);
    for (let i = 0; i < 300; i++) {
      const batch = randomBatch(r);
      const frame = encodeTelemetryFrame(batch);
      expect(isTelemetryFrame(frame)).toBe(true);
      const decoded = decodeTelemetryFrame(frame);
      // toEqual tells −0 from 0: a −0 read back as 0, as through JSON, bit for bit otherwise.
      expect(decoded).toEqual({
        ok: true,
        batch: payloads.telemetry.parse(JSON.parse(JSON.stringify(batch))),
      });
    }
  });

  it("takes less than half the bytes of the JSON for a 10-variable second", () => {
    const asset = randomUUID();
    const batch: Batch = {
      agent_id: randomUUID(),
      seq: 1,
      lane: "live",
      series: Array.from({ length: 10 }, (_, v) => ({
        asset_id: asset,
        variable: `var_${v}`,
        points: [[1_750_000_000_000, Math.fround(500 + v * 1.37)] as [number, number]],
      })),
      alarms: [],
    };
    const json = Buffer.byteLength(JSON.stringify(batch));
    expect(encodeTelemetryFrame(batch).length).toBeLessThan(json / 2);
  });

  it("refuses a frame cut short at any byte, or with a byte too many, and never throws", () => {
    const frame = encodeTelemetryFrame({ ...one({ unit: "psi" }), alarms: [alarm] });
    for (let n = 0; n < frame.length; n++) {
      expect(decodeTelemetryFrame(frame.subarray(0, n)).ok, `${n} bytes`).toBe(false);
    }
    expect(decodeTelemetryFrame(Buffer.concat([frame, Buffer.from([0])]))).toMatchObject({
      ok: false,
      reason: "binary batch: its length does not match its contents",
    });
  });

  it("says why it refuses each field, and names the sender when the header is sound", () => {
    const batch = one();
    const sender = { agent_id: batch.agent_id, seq: 7 };
    const refusal = (frame: Buffer) => decodeTelemetryFrame(frame);
    expect(refusal(patched(batch, (f) => (f[1] = 2)))).toEqual({
      ok: false,
      reason: "binary batch: format version 2 is not known (1 is)",
      sender: undefined,
    });
    expect(refusal(patched(batch, (f) => f.fill(0x11, 4, 20)))).toMatchObject({
      reason: "binary batch: agent_id is not a UUID",
    });
    expect(refusal(patched(batch, (f) => f.writeDoubleLE(0, 20)))).toMatchObject({
      reason: "binary batch: seq must be a positive integer",
    });
    expect(refusal(patched(batch, (f) => f.writeDoubleLE(1.5, 20)))).toMatchObject({
      reason: "binary batch: seq must be a positive integer",
    });
    expect(refusal(patched(batch, (f) => (f[2] = 2)))).toEqual({
      ok: false,
      reason: "binary batch: lane must be 0 (live) or 1 (backlog)",
      sender,
    });
    expect(refusal(patched(batch, (f) => (f[3] = 1)))).toMatchObject({
      reason: "binary batch: byte 3 must be 0",
      sender,
    });
    expect(refusal(patched(batch, (f) => f.fill(0x11, 32, 48)))).toMatchObject({
      reason: "binary batch: series 0: asset_id is not a UUID",
      sender,
    });
    expect(refusal(encodeTelemetryFrame(one({ variable: "" })))).toMatchObject({
      reason: "binary batch: series 0: variable must be 1 to 128 characters, without NUL",
    });
    expect(refusal(encodeTelemetryFrame(one({ variable: "x".repeat(129) })))).toMatchObject({
      reason: "binary batch: series 0: variable must be 1 to 128 characters, without NUL",
    });
    expect(refusal(encodeTelemetryFrame(one({ variable: "a\0b" })))).toMatchObject({
      reason: "binary batch: series 0: variable must be 1 to 128 characters, without NUL",
    });
    expect(refusal(encodeTelemetryFrame(one({ unit: "u".repeat(33) })))).toMatchObject({
      reason: "binary batch: series 0: unit must be at most 32 characters, without NUL",
    });
    expect(refusal(encodeTelemetryFrame(one({ unit: "\0" })))).toMatchObject({
      reason: "binary batch: series 0: unit must be at most 32 characters, without NUL",
    });
    expect(refusal(encodeTelemetryFrame(one({ points: [] })))).toMatchObject({
      reason: "binary batch: series 0: no points",
    });
    for (const ts of [-1, 1.5, 2 ** 53])
      expect(refusal(encodeTelemetryFrame(one({ points: [[ts, 1]] })))).toMatchObject({
        reason: "binary batch: series 0, point 0: ts must be a non-negative integer",
      });
    for (const value of [Number.NaN, Number.POSITIVE_INFINITY, 1e15 + 1, -2e15])
      expect(refusal(encodeTelemetryFrame(one({ points: [[1, value]] })))).toMatchObject({
        reason: "binary batch: series 0, point 0: value must be finite, at most 1e15 in magnitude",
      });
    expect(refusal(encodeTelemetryFrame({ ...batch, series: [] }))).toMatchObject({
      reason: "binary batch: a batch carries points or alarms",
    });
    expect(
      refusal(encodeTelemetryFrame({ ...batch, alarms: [{ ...alarm, severity: "loud" as "info" }] })),
    ).toMatchObject({ ok: false, sender });
    // The series count is checked against the bytes before anything is allocated for it.
    expect(refusal(patched(batch, (f) => f.writeUInt32LE(0xffffffff, 28)))).toMatchObject({
      reason: "binary batch: more series than bytes",
    });
    expect(refusal(patched(batch, (f) => f.writeUInt32LE(0xffffffff, 32 + 16 + 2 + 4 + 1)))).toMatchObject({
      reason: "binary batch: series 0: cut short",
    });
  });

  it("starts with a byte no JSON text starts with", () => {
    expect(isTelemetryFrame(Buffer.from('{"seq":1}'))).toBe(false);
    expect(isTelemetryFrame(Buffer.from(' {"seq":1}'))).toBe(false);
    expect(FRAME_MAGIC).toBeGreaterThan(0x7f); // not ASCII: never JSON's first byte
  });

  it("will not encode what no frame can carry", () => {
    expect(() => encodeTelemetryFrame({ ...one(), agent_id: "not-a-uuid" })).toThrow("not a UUID");
  });

  it("judges a UUID's bytes as z.uuid() judges its text", () => {
    const r = new Seeded(7);
    const pattern = z.regexes.uuid();
    const cases = [Buffer.alloc(16), Buffer.alloc(16, 0xff), Buffer.alloc(16, 0x11)];
    for (let i = 0; i < 5_000; i++) {
      const bytes = Buffer.from(Array.from({ length: 16 }, () => r.int(0, 255)));
      // Every version nibble and variant, not only what random bytes hit often.
      if (i % 2 === 0) bytes[6] = (r.int(0, 15) << 4) | r.int(0, 15);
      if (i % 3 === 0) bytes[8] = (r.int(0, 3) << 6) | r.int(0, 63);
      cases.push(bytes);
    }
    for (const bytes of cases) {
      const h = bytes.toString("hex");
      const text = `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
      expect(uuidValid(bytes, 0), text).toBe(pattern.test(text));
    }
  });

  it("reads names and ids right through its text cache, past the cache's size", () => {
    const batch = one();
    const first = decodeTelemetryFrame(encodeTelemetryFrame(batch));
    const again = decodeTelemetryFrame(encodeTelemetryFrame(batch));
    expect(first.ok && again.ok && first.batch.series[0]?.variable).toBe("flow");
    // 40,000 names through 16,384 slots: names share slots and replace each other on the way,
    // and every name reads back, the first ones again at the end.
    const names = Array.from({ length: 40_000 }, (_, i) => i);
    for (const i of [...names, ...names.slice(0, 2_000)]) {
      const decoded = decodeTelemetryFrame(
        encodeTelemetryFrame(one({ variable: `v${i}`, unit: `u${i % 7}` })),
      );
      expect(decoded.ok && [decoded.batch.series[0]?.variable, decoded.batch.series[0]?.unit]).toEqual([
        `v${i}`,
        `u${i % 7}`,
      ]);
    }
  });

  it("refuses a name with NUL every time, decoded or found in the cache", () => {
    for (let i = 0; i < 2; i++) {
      const decoded = decodeTelemetryFrame(encodeTelemetryFrame(one({ variable: "caudal\0gas" })));
      expect(decoded).toMatchObject({ ok: false, reason: expect.stringContaining("without NUL") });
      const unit = decodeTelemetryFrame(encodeTelemetryFrame(one({ unit: "m\0" })));
      expect(unit).toMatchObject({ ok: false, reason: expect.stringContaining("without NUL") });
    }
  });
});
