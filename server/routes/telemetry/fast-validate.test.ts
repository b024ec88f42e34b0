import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Seeded } from "../../testing/codec/seeded.ts";
import {
  BATCH_EDITS,
  judge,
  PAYLOAD_EDITS,
  randomBatch,
  randomPayload,
  type Verdict,
  validBatch,
} from "../../testing/fixtures/ingest-body-fixtures.ts";
import { fastParseTelemetryBatch, fastParseTelemetryPayload } from "./fast-validate.ts";
import { telemetryBatchSchema, telemetryPayloadSchema, telemetryReadingSchema } from "./schema.ts";

const ASSET = "0b6f6a3e-58e2-4a6b-9a53-6c1f0e2d9b71";
const CASES = 4000;

type Tally = Record<Verdict, number>;

/** Judges `CASES` random bodies; returns the tally and the first disagreement, if any. */
function sweep(
  seed: number,
  make: (rng: Seeded, applied: Set<string>) => unknown,
  fast: (input: unknown) => unknown,
  schema: z.ZodType,
) {
  const rng = new Seeded(seed);
  const applied = new Set<string>();
  const tally: Tally = { fast: 0, fallback: 0, rejected: 0 };
  for (let i = 0; i < CASES; i++) {
    const input = make(rng, applied);
    const result = judge(fast, schema, input);
    if ("disagreement" in result) return { tally, applied, disagreement: { case: i, ...result, input } };
    tally[result.verdict]++;
  }
  return { tally, applied, disagreement: undefined };
}

/** Every outcome occurs often enough that the sweep tests each side of the rule, every edit was tried. */
function expectBroadSweep(tally: Tally, applied: Set<string>, edits: Record<string, unknown>) {
  expect(tally.fast).toBeGreaterThan(CASES / 10);
  expect(tally.rejected).toBeGreaterThan(CASES / 10);
  expect(tally.fallback).toBeGreaterThan(CASES / 200);
  expect([...applied].sort()).toEqual(Object.keys(edits).sort());
}

describe("the hand-written ingest parsers agree with the zod schemas", () => {
  it(`POST /telemetry: over ${CASES} random payloads, accepted means zod accepts it with the same output`, () => {
    const result = sweep(0x13a, randomPayload, fastParseTelemetryPayload, telemetryPayloadSchema);
    expect(result.disagreement).toBeUndefined();
    expectBroadSweep(result.tally, result.applied, PAYLOAD_EDITS);
  });

  it(`POST /telemetry/batch: over ${CASES} random batches, the same`, () => {
    const result = sweep(0x13b, randomBatch, fastParseTelemetryBatch, telemetryBatchSchema);
    expect(result.disagreement).toBeUndefined();
    expectBroadSweep(result.tally, result.applied, { ...PAYLOAD_EDITS, ...BATCH_EDITS });
  });

  it("the sweep finds a parser that is laxer than zod (here: no date, UUID or repeat checks)", () => {
    const lax = z.object({
      asset_id: z.guid(),
      timestamp: z.string().optional(),
      readings: z.array(telemetryReadingSchema).min(1),
    });
    const laxParse = (input: unknown) => {
      const r = lax.safeParse(input);
      return r.success ? r.data : undefined;
    };
    const result = sweep(0x13a, randomPayload, laxParse, telemetryPayloadSchema);
    expect(result.disagreement?.disagreement).toMatch(/^accepted what zod refuses/);
  });

  it("the sweep finds a parser whose output differs from zod's (here: keeps unknown keys)", () => {
    const loose = (input: unknown) => {
      const r = telemetryPayloadSchema.safeParse(input);
      return r.success ? input : undefined;
    };
    const result = sweep(0x13a, randomPayload, loose, telemetryPayloadSchema);
    expect(result.disagreement?.disagreement).toBe("output differs from zod's");
  });

  it("takes a well-formed batch without zod and returns zod's output: unknown keys dropped, no unit or timestamp added", () => {
    const body = {
      items: [
        {
          asset_id: ASSET,
          timestamp: "2024-02-29T12:00:00.123+05:30",
          readings: [{ variable: "p", value: -0 }],
        },
        { asset_id: ASSET, readings: [{ variable: "p", value: 1e15, unit: "", extra: 1 }], note: "x" },
      ],
      extra: true,
    };
    const ours = fastParseTelemetryBatch(body);
    expect(ours).toStrictEqual(telemetryBatchSchema.parse(body));
    expect(ours).toStrictEqual({
      items: [
        {
          asset_id: ASSET,
          timestamp: "2024-02-29T12:00:00.123+05:30",
          readings: [{ variable: "p", value: -0 }],
        },
        { asset_id: ASSET, readings: [{ variable: "p", value: 1e15, unit: "" }] },
      ],
    });
    expect(Object.is(ours?.items[0]?.readings[0]?.value, -0)).toBe(true);
  });

  it.each([
    ["2023-02-29T00:00:00Z", false],
    ["2024-02-29T00:00:00Z", true],
    ["1900-02-29T00:00:00Z", false],
    ["2000-02-29T00:00:00Z", true],
    ["2025-01-31T12:00Z", false],
    ["2025-01-31T12:00:00", false],
    ["2025-01-31T12:00:00.123456789-05:30", true],
    ["2025-01-31T12:00:00+24:00", false],
  ])("timestamp %s: accepted %s, as zod decides", (timestamp, ok) => {
    const payload = { asset_id: ASSET, timestamp, readings: [{ variable: "v", value: 1 }] };
    expect(telemetryPayloadSchema.safeParse(payload).success).toBe(ok);
    expect(fastParseTelemetryPayload(payload) !== undefined).toBe(ok);
  });

  it("leaves to zod what only looks too long: 128 code points in more UTF-16 units (zod counts code points)", () => {
    const variable = `${"😀".repeat(10)}${"v".repeat(118)}`;
    const payload = { asset_id: ASSET, readings: [{ variable, value: 1, unit: "😀".repeat(32) }] };
    expect(telemetryPayloadSchema.safeParse(payload).success).toBe(true);
    expect(fastParseTelemetryPayload(payload)).toBeUndefined();
  });

  it("leaves a key present with the value undefined to zod (whose output keeps the key)", () => {
    const payload = {
      asset_id: ASSET,
      timestamp: undefined,
      readings: [{ variable: "v", value: 1, unit: undefined }],
    };
    expect(Object.keys(telemetryPayloadSchema.parse(payload))).toContain("timestamp");
    expect(fastParseTelemetryPayload(payload)).toBeUndefined();
  });

  it("refuses a repeated variable, within a small payload and a large one", () => {
    for (const n of [2, 16, 17, 500]) {
      const readings = Array.from({ length: n }, (_, i) => ({ variable: `v${i}`, value: i }));
      expect(fastParseTelemetryPayload({ asset_id: ASSET, readings })).toBeDefined();
      readings.push({ variable: `v${n - 1}`, value: 0 });
      expect(fastParseTelemetryPayload({ asset_id: ASSET, readings })).toBeUndefined();
    }
  });

  it("tests each asset id of a batch, not only the first", () => {
    const body = validBatch(new Seeded(7));
    const items = body.items as Record<string, unknown>[];
    items.push({ ...items[0], asset_id: "0b6f6a3e-58e2-0a6b-9a53-6c1f0e2d9b71" });
    expect(telemetryBatchSchema.safeParse(body).success).toBe(false);
    expect(fastParseTelemetryBatch(body)).toBeUndefined();
  });
});
