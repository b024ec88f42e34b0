import { describe, expect, it } from "vitest";
import { decodeTelemetryFrame } from "../../shared/mqtt/telemetry-frame.ts";
import { payloads } from "../../shared/mqtt/topics.ts";
import { telemetryFrame, telemetryMessage } from "./telemetry-message.ts";

const AGENT = "0b9f8c1e-2a3b-4c5d-8e6f-7a8b9c0d1e2f";
const ASSET = "7b0b5a7e-1111-4111-8111-111111111111";
const body = {
  series: [
    { asset_id: ASSET, variable: 'presión "cabeza"', unit: "psi", points: [[1_763_700_000_000, 1450.25]] },
  ],
  alarms: [],
};

describe("telemetryMessage: the envelope spliced around a stored body", () => {
  it("is the same JSON as encoding the whole message, and a valid telemetry payload", () => {
    const text = telemetryMessage(AGENT, 12, "backlog", JSON.stringify(body));
    const expected = { ...body, agent_id: AGENT, seq: 12, lane: "backlog" };
    expect(JSON.parse(text)).toEqual(expected);
    expect(payloads.telemetry.safeParse(JSON.parse(text)).success).toBe(true);
  });

  it("lets the envelope win over a same-named key of the body, as a spread does", () => {
    const text = telemetryMessage(AGENT, 3, "live", JSON.stringify({ ...body, seq: 99 }));
    expect(JSON.parse(text)).toMatchObject({ agent_id: AGENT, seq: 3, lane: "live" });
  });

  it("encodes a body that is not a JSON object with members the slow way", () => {
    expect(JSON.parse(telemetryMessage(AGENT, 4, "live", "{}"))).toEqual({
      agent_id: AGENT,
      seq: 4,
      lane: "live",
    });
    expect(JSON.parse(telemetryMessage(AGENT, 5, "live", ' {"series":[]} '))).toEqual({
      series: [],
      agent_id: AGENT,
      seq: 5,
      lane: "live",
    });
  });
});

describe("telemetryFrame: the stored body as a binary batch", () => {
  it("carries what the JSON message carries", () => {
    const frame = telemetryFrame(AGENT, 12, "backlog", JSON.stringify(body));
    expect(frame && decodeTelemetryFrame(frame)).toEqual({
      ok: true,
      batch: payloads.telemetry.parse(
        JSON.parse(telemetryMessage(AGENT, 12, "backlog", JSON.stringify(body))),
      ),
    });
  });

  it("is not made from what cannot be a frame: the JSON goes instead", () => {
    expect(telemetryFrame(AGENT, 1, "live", "not json")).toBeUndefined();
    expect(telemetryFrame(AGENT, 1, "live", "{}")).toBeUndefined();
    const foreign = { ...body, series: [{ ...body.series[0], asset_id: "well-7" }] };
    expect(telemetryFrame(AGENT, 1, "live", JSON.stringify(foreign))).toBeUndefined();
  });
});
