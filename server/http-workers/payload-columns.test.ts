import { describe, expect, it } from "vitest";
import type { TelemetryPayloadInput } from "../services/telemetry/ingest.ts";
import { fromColumns, toColumns } from "./payload-columns.ts";

const roundTrip = (payloads: TelemetryPayloadInput[]) => {
  const columns = toColumns(payloads);
  // As it crosses threads: the buffer is transferred, the strings cloned.
  const crossed = structuredClone(columns, { transfer: [columns.buffer] });
  return fromColumns(crossed);
};

describe("payload columns", () => {
  it("give back exactly the payloads: timestamps and units only where they were, every value bit for bit", () => {
    const payloads: TelemetryPayloadInput[] = [
      {
        asset_id: "0b3c9d4e-1111-4a2b-8c3d-000000000001",
        timestamp: "2025-01-31T12:00:00.123Z",
        readings: [
          { variable: "pressure", value: 1523.5, unit: "psi" },
          { variable: "choke", value: -0 },
          { variable: "big", value: 1e15 },
          { variable: "small", value: -1e15 },
          { variable: "tiny", value: Number.MIN_VALUE },
          { variable: "float32", value: Math.fround(0.1) },
        ],
      },
      {
        asset_id: "0b3c9d4e-1111-4a2b-8c3d-000000000002",
        readings: [{ variable: "pressure", value: 2, unit: "bar" }],
      },
      {
        asset_id: "0b3c9d4e-1111-4a2b-8c3d-000000000001",
        timestamp: "2025-01-31T12:00:01Z",
        readings: [{ variable: "pressure", value: 1524, unit: "psi" }],
      },
    ];
    const back = roundTrip(payloads);
    expect(back).toStrictEqual(payloads);
    expect(Object.is(back[0]?.readings[1]?.value, -0)).toBe(true);
  });

  it("keep each distinct string once, so a batch of one asset's variables crosses small", () => {
    const payloads = Array.from({ length: 500 }, (_, i) => ({
      asset_id: "0b3c9d4e-1111-4a2b-8c3d-000000000001",
      timestamp: new Date(1_700_000_000_000 + i * 1000).toISOString(),
      readings: Array.from({ length: 10 }, (_, v) => ({ variable: `tag_${v}`, value: i * v, unit: "psi" })),
    }));
    const columns = toColumns(payloads);
    expect(columns.strings).toHaveLength(1 + 500 + 10 + 1);
    expect(columns.buffer.byteLength).toBe(5000 * 8 + (500 * 3 + 5000 * 2) * 4);
    expect(roundTrip(payloads)).toStrictEqual(payloads);
  });

  it("carry an empty list", () => {
    expect(roundTrip([])).toStrictEqual([]);
  });
});
