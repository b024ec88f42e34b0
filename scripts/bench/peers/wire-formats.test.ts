import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { telemetryBatchSchema } from "../../../server/routes/telemetry/schema.ts";
import { decodeTelemetryFrame } from "../../../shared/mqtt/telemetry-frame.ts";
import { payloads } from "../../../shared/mqtt/topics.ts";
import { SensorWalk } from "./sensor-walk.ts";
import { agentFrame, agentFrames, agentMessage, caudalBatch, influxLines } from "./wire-formats.ts";

const assetId = randomUUID();
const fromMs = Date.UTC(2025, 0, 31, 12, 0, 0);
const block = { fromMs, values: new SensorWalk(3, 10).take(500) };

describe("each side's wire format carries the same readings", () => {
  it("Caudal's batch is a valid POST /api/telemetry/batch body with 5,000 readings", () => {
    const batch = telemetryBatchSchema.parse(JSON.parse(caudalBatch(assetId, 10, block)));
    expect(batch.items).toHaveLength(500);
    const item = batch.items[499];
    expect(item?.asset_id).toBe(assetId);
    expect(item?.timestamp).toBe(new Date(fromMs + 499_000).toISOString());
    expect(item?.readings.map((r) => r.variable)).toEqual(Array.from({ length: 10 }, (_, i) => `tag_0${i}`));
    expect(item?.readings.map((r) => r.value)).toEqual(Array.from(block.values.subarray(4990, 5000)));
  });

  it("an agent message is a valid telemetry payload, one point per variable", () => {
    const one = { fromMs, values: block.values.subarray(0, 10) };
    const message = payloads.telemetry.parse(JSON.parse(agentMessage(randomUUID(), 7, assetId, 10, one)));
    expect(message.seq).toBe(7);
    expect(message.lane).toBe("live");
    expect(message.series.map((s) => s.points)).toEqual(Array.from(one.values, (v) => [[fromMs, v]]));
  });

  it("an agent frame carries what its JSON message carries", () => {
    const one = { fromMs, values: block.values.subarray(0, 10) };
    const agentId = randomUUID();
    expect(decodeTelemetryFrame(agentFrame(agentId, 7, assetId, 10, one))).toEqual({
      ok: true,
      batch: payloads.telemetry.parse(JSON.parse(agentMessage(agentId, 7, assetId, 10, one))),
    });
  });

  it("a publisher's frames from its template are the frames agentFrame encodes, byte for byte", () => {
    const agentId = randomUUID();
    const frames = agentFrames(agentId, assetId, 10);
    for (const [seq, from, to] of [
      [1, 0, 10],
      [2, 10, 20],
      [3, 20, 50],
      [4, 50, 60],
    ] as const) {
      const part = { fromMs: fromMs + from * 100, values: block.values.subarray(from, to) };
      expect(frames(seq, part).equals(agentFrame(agentId, seq, assetId, 10, part))).toBe(true);
    }
  });

  it("InfluxDB's line protocol has one line per second, a field per variable, in seconds", () => {
    const lines = influxLines(assetId, 10, block).trimEnd().split("\n");
    expect(lines).toHaveLength(500);
    const [measurement, fields, ts] = (lines[1] ?? "").split(" ");
    expect(measurement).toBe(`sensor,asset=${assetId}`);
    expect(ts).toBe(String(fromMs / 1000 + 1));
    const values = (fields ?? "").split(",").map((f) => Number(f.split("=")[1]));
    expect(values).toEqual(Array.from(block.values.subarray(10, 20)));
  });
});
