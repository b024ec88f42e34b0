import { afterEach, describe, expect, it, vi } from "vitest";
import type { z } from "zod";
import { describeZodError } from "../../http/validation.ts";
import { Seeded } from "../../testing/codec/seeded.ts";
import { randomBatch, randomPayload } from "../../testing/fixtures/ingest-body-fixtures.ts";
import { telemetryBatchBody, telemetryPayloadBody } from "./ingest-body.ts";
import { telemetryBatchSchema, telemetryPayloadSchema } from "./schema.ts";

const ASSET = "0b6f6a3e-58e2-4a6b-9a53-6c1f0e2d9b71";

/**
 * The routes' body schemas answer safeParseAsync (as zod-openapi's validator calls it) exactly as
 * the documented schemas do: the same data, or the same issues, hence the same 400 message.
 */
async function expectSameAnswer(body: z.ZodType, schema: z.ZodType, input: unknown) {
  const ours = await body.safeParseAsync(input);
  const zod = await schema.safeParseAsync(input);
  expect(ours.success).toBe(zod.success);
  if (ours.success && zod.success) expect(ours.data).toStrictEqual(zod.data);
  if (!ours.success && !zod.success) {
    expect(ours.error.issues).toStrictEqual(zod.error.issues);
    expect(describeZodError(ours.error, input, "json")).toBe(describeZodError(zod.error, input, "json"));
  }
  return zod.success;
}

describe("the ingest routes' body schemas: the fast path, else the zod schema's own answer", () => {
  afterEach(() => vi.restoreAllMocks());

  it("answers 500 random batches and 500 payloads as the zod schemas do, data or issues", async () => {
    const rng = new Seeded(0x13c);
    const applied = new Set<string>();
    let accepted = 0;
    for (let i = 0; i < 500; i++) {
      if (await expectSameAnswer(telemetryBatchBody, telemetryBatchSchema, randomBatch(rng, applied)))
        accepted++;
      const payload = randomPayload(rng, applied);
      if (await expectSameAnswer(telemetryPayloadBody, telemetryPayloadSchema, payload)) accepted++;
    }
    expect(accepted).toBeGreaterThan(100);
    expect(accepted).toBeLessThan(900);
  });

  it("does not call zod for a well-formed body", async () => {
    const zod = vi.spyOn(telemetryBatchSchema, "safeParse");
    const result = await telemetryBatchBody.safeParseAsync({
      items: [{ asset_id: ASSET, readings: [{ variable: "p", value: 1 }] }],
    });
    expect(result.success).toBe(true);
    expect(zod).not.toHaveBeenCalled();
  });

  it("asks zod about what the fast path leaves, and keeps what zod accepts (128 code points in 138 units)", async () => {
    const zod = vi.spyOn(telemetryPayloadSchema, "safeParse");
    const variable = `${"😀".repeat(10)}${"v".repeat(118)}`;
    const result = await telemetryPayloadBody.safeParseAsync({
      asset_id: ASSET,
      readings: [{ variable, value: 1 }],
    });
    expect(zod).toHaveBeenCalledTimes(1);
    expect(result.success && result.data.readings[0]?.variable).toBe(variable);
  });

  it("names every bad field, and a missing one as required, as before", async () => {
    const input = { items: [{ asset_id: "x", readings: [{ value: Number.NaN }, { variable: "" }] }, {}] };
    const result = await telemetryBatchBody.safeParseAsync(input);
    expect(result.success).toBe(false);
    if (result.success) return;
    expect(describeZodError(result.error, input, "json")).toBe(
      "items.0.asset_id: must be a UUID; items.0.readings.0.variable: is required; " +
        "items.0.readings.0.value: must be a finite number; items.0.readings.1.variable: must not be empty; " +
        "items.0.readings.1.value: is required; items.1.asset_id: is required; items.1.readings: is required",
    );
  });
});
