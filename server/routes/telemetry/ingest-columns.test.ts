import { describe, expect, it } from "vitest";
import { type PayloadColumns, toColumns } from "../../http-workers/payload-columns.ts";
import { MAX_READINGS_PER_REQUEST } from "../../services/telemetry/limits.ts";
import { Seeded } from "../../testing/codec/seeded.ts";
import {
  randomBatch,
  randomPayload,
  validBatch,
  validPayload,
} from "../../testing/fixtures/ingest-body-fixtures.ts";
import {
  asciiOnly,
  bodyBytes,
  randomNumberToken,
  render,
  TEXT_EDITS,
} from "../../testing/fixtures/ingest-text-fixtures.ts";
import { telemetryBatchBody, telemetryPayloadBody } from "./ingest-body.ts";
import { parseIngestColumns } from "./ingest-columns.ts";
import type { IngestShape } from "./ingest-writer.ts";
import { scanJsonNumber } from "./json-number.ts";

const ASSET = "0b6f6a3e-58e2-4a6b-9a53-6c1f0e2d9b71";
const CASES = 4000;

type Parser = (body: Uint8Array, shape: IngestShape) => PayloadColumns | undefined;

/** Today's path: hono's c.req.json() (UTF-8 text, JSON.parse), the route's body schema, the service's cap, toColumns. */
function todaysPath(body: Uint8Array, shape: IngestShape): PayloadColumns | undefined {
  let input: unknown;
  try {
    input = JSON.parse(new TextDecoder().decode(body));
  } catch {
    return undefined;
  }
  const payloads =
    shape === "payload"
      ? ((r) => (r.success ? [r.data] : undefined))(telemetryPayloadBody.safeParse(input))
      : ((r) => (r.success ? r.data.items : undefined))(telemetryBatchBody.safeParse(input));
  if (payloads === undefined) return undefined;
  const readings = payloads.reduce((n, p) => n + p.readings.length, 0);
  return readings > MAX_READINGS_PER_REQUEST ? undefined : toColumns(payloads);
}

const same = (a: PayloadColumns, b: PayloadColumns) =>
  a.payloads === b.payloads &&
  a.readings === b.readings &&
  JSON.stringify(a.strings) === JSON.stringify(b.strings) &&
  Buffer.from(a.buffer).equals(Buffer.from(b.buffer));

type Tally = { fast: number; fallback: number; rejected: number };

/** Random bodies as bytes: generated (valid, or with rule-breaking edits), mostly ASCII, rendered in varied forms, a third edited as text. */
function sweep(seed: number, shape: IngestShape, parse: Parser) {
  const rng = new Seeded(seed);
  const tally: Tally = { fast: 0, fallback: 0, rejected: 0 };
  const edits = new Set<string>();
  const make = shape === "payload" ? randomPayload : randomBatch;
  const valid = shape === "payload" ? validPayload : validBatch;
  for (let i = 0; i < CASES; i++) {
    const generated = rng.next() < 0.4 ? valid(rng) : make(rng, new Set());
    let text = render(rng.next() < 0.85 ? asciiOnly(generated) : generated, rng);
    if (rng.next() < 0.35) {
      const name = rng.pick(Object.keys(TEXT_EDITS));
      text = TEXT_EDITS[name]?.(text, rng) ?? text;
      edits.add(name);
    }
    const body = bodyBytes(text, rng);
    const ours = parse(body, shape);
    const theirs = todaysPath(body, shape);
    if (ours === undefined) {
      tally[theirs === undefined ? "rejected" : "fallback"]++;
      continue;
    }
    const text8 = body.toString("utf8");
    if (theirs === undefined)
      return { tally, edits, disagreement: `accepted what today's path refuses: ${text8}` };
    if (!same(ours, theirs)) return { tally, edits, disagreement: `columns differ: ${text8}` };
    tally.fast++;
  }
  return { tally, edits, disagreement: undefined };
}

function expectBroad(tally: Tally, edits: Set<string>) {
  expect(tally.fast).toBeGreaterThan(CASES / 5);
  expect(tally.rejected).toBeGreaterThan(CASES / 10);
  expect(tally.fallback).toBeGreaterThan(CASES / 50);
  expect([...edits].sort()).toEqual(Object.keys(TEXT_EDITS).sort());
}

describe("the ingest byte parser agrees with JSON.parse, the validators and toColumns", () => {
  it.each([
    ["payload", 0x1301],
    ["batch", 0x1302],
  ] as const)(
    `%s: over ${CASES} random bodies, accepted means today's path gives the same columns`,
    (shape, seed) => {
      const result = sweep(seed, shape, parseIngestColumns);
      expect(result.disagreement).toBeUndefined();
      expectBroad(result.tally, result.edits);
    },
  );

  it("the sweep catches a parser laxer than JSON (here: trailing commas allowed)", () => {
    const lax: Parser = (body, shape) =>
      parseIngestColumns(Buffer.from(body.toString().replace(/,(\s*[}\]])/g, "$1")), shape);
    expect(sweep(0x1301, "payload", lax).disagreement).toMatch(/^accepted what today's path refuses/);
  });

  it("the sweep catches columns that differ (here: -0 stored as 0)", () => {
    const plusZero: Parser = (body, shape) => {
      const columns = parseIngestColumns(body, shape);
      if (columns) {
        const values = new Float64Array(columns.buffer, 0, columns.readings);
        for (let i = 0; i < values.length; i++) values[i] = (values[i] ?? 0) + 0;
      }
      return columns;
    };
    expect(sweep(0x1302, "batch", plusZero).disagreement).toMatch(/^columns differ/);
  });

  it("reads every JSON number token as the double JSON.parse gives, -0 included", () => {
    const rng = new Seeded(0x1303);
    const out = { value: 0, text: undefined as string | undefined };
    for (let i = 0; i < 20000; i++) {
      const token = randomNumberToken(rng);
      out.text = undefined;
      const end = scanJsonNumber(Buffer.from(`${token},`), 0, out);
      expect(end, token).toBe(token.length);
      expect(Object.is(out.value, JSON.parse(token)), token).toBe(true);
    }
    for (const bad of ["01", "-", "+1", ".5", "1.", "1e", "1e+", "-x", "00", "-01"]) {
      expect(scanJsonNumber(Buffer.from(`${bad},`), 0, out), bad).toBe(-1);
    }
  });

  it("declines what it leaves to today's path: escapes, repeated or unknown keys, non-ASCII, a BOM", () => {
    const good = `{"asset_id":"${ASSET}","readings":[{"variable":"v","value":1}]}`;
    expect(parseIngestColumns(Buffer.from(good), "payload")).toBeDefined();
    for (const body of [
      good.replace('"v"', '"\\u0076"'),
      good.replace('{"asset_id"', '{"asset_id":"x","asset_id"'),
      good.replace('"value":1', '"value":2,"value":1'),
      good.replace('"value":1', '"value":1,"note":"x"'),
      good.replace('"v"', '"é"'),
      `\ufeff${good}`,
    ]) {
      expect(todaysPath(Buffer.from(body), "payload"), body).toBeDefined();
      expect(parseIngestColumns(Buffer.from(body), "payload"), body).toBeUndefined();
    }
  });

  it(`declines more than ${MAX_READINGS_PER_REQUEST} readings (the service answers 413), takes exactly that many`, () => {
    const body = (n: number) =>
      Buffer.from(
        JSON.stringify({
          items: Array.from({ length: n / 10 }, (_, i) => ({
            asset_id: ASSET,
            timestamp: new Date(Date.UTC(2025, 0, 1) + i * 1000).toISOString(),
            readings: Array.from({ length: 10 }, (_, v) => ({
              variable: `v${v}`,
              value: i + v / 10,
              unit: "C",
            })),
          })),
        }),
      );
    const full = parseIngestColumns(body(MAX_READINGS_PER_REQUEST), "batch");
    expect(full?.readings).toBe(MAX_READINGS_PER_REQUEST);
    const expected = todaysPath(body(MAX_READINGS_PER_REQUEST), "batch");
    expect(full && expected && same(full, expected)).toBe(true);
    expect(parseIngestColumns(body(MAX_READINGS_PER_REQUEST + 10), "batch")).toBeUndefined();
  });

  it("a body in a larger buffer: reads only its own bytes, and keeps nothing of one request for the next", () => {
    const text = `{"asset_id":"${ASSET}","readings":[{"variable":"v","value":1.5}]}`;
    const padded = Buffer.from(`xx${text}yy`);
    const columns = parseIngestColumns(padded.subarray(2, 2 + text.length), "payload");
    expect(columns?.strings).toEqual([ASSET, "v"]);
    const other = parseIngestColumns(Buffer.from(text.replace('"v"', '"w"')), "payload");
    expect(other?.strings).toEqual([ASSET, "w"]);
  });
});
