import { afterEach, describe, expect, it, vi } from "vitest";
import { payloads } from "../../shared/mqtt/topics.ts";
import { parseTelemetryPayload } from "./telemetry-payload.ts";

const AGENT = "0b9f8c1e-2a3b-4c5d-8e6f-7a8b9c0d1e2f";
const ASSET = "7b0b5a7e-1111-4111-8111-111111111111";
const ALARM = {
  id: "5c6d7e8f-1234-4abc-9def-0123456789ab",
  event: "raised",
  rule_id: "6d7e8f90-2345-4bcd-aef0-123456789abc",
  asset_id: ASSET,
  variable: "pressure",
  value: 1520.5,
  alarm_type: "high",
  severity: "warning",
  message: "pressure high",
  at: 1_763_700_000_000,
};

function batch(): Record<string, unknown> {
  return {
    agent_id: AGENT,
    seq: 42,
    lane: "backlog",
    series: [
      {
        asset_id: ASSET,
        variable: "pressure",
        unit: "psi",
        points: Array.from({ length: 50 }, (_, i) => [1_763_700_000_000 + i * 1000, 1450 + i / 7]),
      },
      { asset_id: ASSET, variable: "temperature", points: [[1_763_700_000_000, 182.25]] },
    ],
    alarms: [],
  };
}

/** Both parsers agree on acceptance, and on the value when they accept. */
function expectSameAsZod(input: unknown): void {
  const zod = payloads.telemetry.safeParse(input);
  const ours = parseTelemetryPayload(input);
  expect(ours.success, JSON.stringify(input)?.slice(0, 300)).toBe(zod.success);
  if (zod.success && ours.success) expect(ours.data).toEqual(zod.data);
  if (!zod.success && !ours.success) expect(ours.error.issues).toEqual(zod.error.issues);
}

type Mutation = (b: Record<string, unknown>) => void;
const series0 = (b: Record<string, unknown>) => (b.series as Record<string, unknown>[])[0] ?? {};
const points0 = (b: Record<string, unknown>) => series0(b).points as unknown[];

/** Each one edits a valid batch towards (or just inside) an edge of the schema. */
const MUTATIONS: Record<string, Mutation> = {
  "agent_id upper case": (b) => {
    b.agent_id = AGENT.toUpperCase();
  },
  "agent_id version 0": (b) => {
    b.agent_id = "0b9f8c1e-2a3b-0c5d-8e6f-7a8b9c0d1e2f";
  },
  "agent_id variant c": (b) => {
    b.agent_id = "0b9f8c1e-2a3b-4c5d-ce6f-7a8b9c0d1e2f";
  },
  "agent_id nil": (b) => {
    b.agent_id = "00000000-0000-0000-0000-000000000000";
  },
  "agent_id max": (b) => {
    b.agent_id = "ffffffff-ffff-ffff-ffff-ffffffffffff";
  },
  "agent_id braces": (b) => {
    b.agent_id = `{${AGENT}}`;
  },
  "agent_id number": (b) => {
    b.agent_id = 7;
  },
  "agent_id missing": (b) => {
    delete b.agent_id;
  },
  "seq 0": (b) => {
    b.seq = 0;
  },
  "seq negative": (b) => {
    b.seq = -3;
  },
  "seq fraction": (b) => {
    b.seq = 1.5;
  },
  "seq 2^53": (b) => {
    b.seq = 2 ** 53;
  },
  "seq max safe": (b) => {
    b.seq = Number.MAX_SAFE_INTEGER;
  },
  "seq string": (b) => {
    b.seq = "42";
  },
  "lane live": (b) => {
    b.lane = "live";
  },
  "lane other": (b) => {
    b.lane = "bulk";
  },
  "lane missing": (b) => {
    delete b.lane;
  },
  "series empty": (b) => {
    b.series = [];
  },
  "series object": (b) => {
    b.series = {};
  },
  "series entry null": (b) => {
    (b.series as unknown[]).push(null);
  },
  "series entry array": (b) => {
    (b.series as unknown[]).push([]);
  },
  "variable empty": (b) => {
    series0(b).variable = "";
  },
  "variable 128": (b) => {
    series0(b).variable = "v".repeat(128);
  },
  "variable 129": (b) => {
    series0(b).variable = "v".repeat(129);
  },
  "variable 64 emoji": (b) => {
    series0(b).variable = "😀".repeat(64);
  },
  "variable 65 emoji": (b) => {
    series0(b).variable = "😀".repeat(65);
  },
  "variable 100 emoji": (b) => {
    series0(b).variable = "😀".repeat(100);
  },
  "variable with a NUL": (b) => {
    series0(b).variable = "pres\u0000sure";
  },
  "unit with a NUL": (b) => {
    series0(b).unit = "\u0000";
  },
  "unit null": (b) => {
    series0(b).unit = null;
  },
  "unit missing": (b) => {
    delete series0(b).unit;
  },
  "unit explicitly undefined": (b) => {
    series0(b).unit = undefined;
  },
  "unit empty": (b) => {
    series0(b).unit = "";
  },
  "unit 32": (b) => {
    series0(b).unit = "u".repeat(32);
  },
  "unit 33": (b) => {
    series0(b).unit = "u".repeat(33);
  },
  "unit 20 emoji": (b) => {
    series0(b).unit = "😀".repeat(20);
  },
  "unit number": (b) => {
    series0(b).unit = 3;
  },
  "asset_id bad": (b) => {
    series0(b).asset_id = "not-a-uuid";
  },
  "asset_id empty": (b) => {
    series0(b).asset_id = "";
  },
  "second series' asset_id bad, the first's good": (b) => {
    (b.series as Record<string, unknown>[])[1] = { ...series0(b), asset_id: "not-a-uuid" };
  },
  "second series' asset_id empty": (b) => {
    (b.series as Record<string, unknown>[])[1] = { ...series0(b), asset_id: "" };
  },
  "second series' asset_id another good one": (b) => {
    (b.series as Record<string, unknown>[])[1] = { ...series0(b), asset_id: AGENT };
  },
  "points empty": (b) => {
    series0(b).points = [];
  },
  "points object": (b) => {
    series0(b).points = {};
  },
  "point short": (b) => {
    points0(b).push([1]);
  },
  "point long": (b) => {
    points0(b).push([1, 2, 3]);
  },
  "point object": (b) => {
    points0(b).push({ 0: 1, 1: 2 });
  },
  "point ts string": (b) => {
    points0(b).push(["1763700000000", 1]);
  },
  "point ts negative": (b) => {
    points0(b).push([-1, 1]);
  },
  "point ts minus zero": (b) => {
    points0(b).push([-0, 1]);
  },
  "point ts zero": (b) => {
    points0(b).push([0, 1]);
  },
  "point ts fraction": (b) => {
    points0(b).push([1.25, 1]);
  },
  "point ts 2^53": (b) => {
    points0(b).push([2 ** 53, 1]);
  },
  "point value string": (b) => {
    points0(b).push([1, "2"]);
  },
  "point value null": (b) => {
    points0(b).push([1, null]);
  },
  "point value huge": (b) => {
    points0(b).push([1, 1.7e308]);
  },
  "point value negative": (b) => {
    points0(b).push([1, -1e-300]);
  },
  "extra key top": (b) => {
    b.extra = { nested: true };
  },
  "extra key series": (b) => {
    series0(b).extra = 1;
  },
  "alarms missing": (b) => {
    delete b.alarms;
  },
  "alarms null": (b) => {
    b.alarms = null;
  },
  "alarms valid": (b) => {
    b.alarms = [{ ...ALARM }];
  },
  "alarms extra key": (b) => {
    b.alarms = [{ ...ALARM, extra: 1 }];
  },
  "alarms invalid": (b) => {
    b.alarms = [{ ...ALARM, event: "flapped" }];
  },
  "alarms only": (b) => {
    b.series = [];
    b.alarms = [{ ...ALARM }];
  },
};

describe("parseTelemetryPayload: the hot-topic validator equals payloads.telemetry.safeParse", () => {
  afterEach(() => vi.restoreAllMocks());

  it("accepts a well-formed batch without zod and returns what zod returns", () => {
    const input = batch();
    const expected = payloads.telemetry.safeParse(input);
    const zod = vi.spyOn(payloads.telemetry, "safeParse");
    const ours = parseTelemetryPayload(input);
    expect(zod).not.toHaveBeenCalled();
    expect(ours.success).toBe(true);
    expect(expected.success).toBe(true);
    if (ours.success && expected.success) expect(ours.data).toEqual(expected.data);
  });

  it("defaults alarms to [] and drops unknown keys, as zod does", () => {
    const input: Record<string, unknown> = { ...batch(), extra: 1 };
    delete input.alarms;
    const ours = parseTelemetryPayload(input);
    expect(ours.success && ours.data.alarms).toEqual([]);
    expect(ours.success && "extra" in ours.data).toBe(false);
  });

  it("leaves an invalid batch to zod, with zod's own error", () => {
    const input = batch();
    input.seq = 0;
    const ours = parseTelemetryPayload(input);
    expect(ours.success).toBe(false);
    if (!ours.success) expect(ours.error.issues[0]?.path).toEqual(["seq"]);
  });

  it.each(Object.entries(MUTATIONS))("agrees with zod: %s", (_name, mutate) => {
    const input = batch();
    mutate(input);
    expectSameAsZod(input);
  });

  it.each([
    ["variable", "variable with a NUL"],
    ["unit", "unit with a NUL"],
  ])("refuses a NUL character in a series' %s (PostgreSQL's text cannot hold it)", (field, mutation) => {
    const input = batch();
    MUTATIONS[mutation]?.(input);
    const result = parseTelemetryPayload(input);
    expect(result.success).toBe(false);
    expect(result.error?.issues).toEqual([
      expect.objectContaining({
        path: ["series", 0, field],
        message: "must not contain the NUL character (U+0000)",
      }),
    ]);
  });

  it.each([null, [], "batch", 42, true, undefined, {}])("agrees with zod on a non-batch: %s", (input) => {
    expectSameAsZod(input);
  });

  it("agrees with zod on 2,000 batches with up to four random edits each", () => {
    // A fixed-seed generator (mulberry32): the same cases on every run, so a failure reproduces.
    let state = 0x5eed;
    const random = () => {
      state = (state + 0x6d2b79f5) | 0;
      let t = Math.imul(state ^ (state >>> 15), 1 | state);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    const all = Object.values(MUTATIONS);
    for (let i = 0; i < 2000; i++) {
      const input = batch();
      const edits = 1 + Math.floor(random() * 4);
      for (let e = 0; e < edits; e++) {
        try {
          all[Math.floor(random() * all.length)]?.(input);
        } catch {
          // An edit that no longer applies (its target was replaced by an earlier one) is skipped.
        }
      }
      expectSameAsZod(input);
    }
  });
});
