import { describe, expect, it } from "vitest";
import { commLossSilence } from "./comm-loss.ts";
import {
  activeState,
  alarmTypeFor,
  conditionHolds,
  evaluate,
  INITIAL_STATE,
  type RuleState,
  returnsToNormal,
  type Transition,
} from "./evaluator.ts";
import { formatValue, ruleAlarmMessage } from "./message.ts";
import type { EvaluatorRule } from "./rule.ts";

const rule = (over: Partial<EvaluatorRule> = {}): EvaluatorRule => ({
  condition: "gt",
  threshold: 100,
  severity: "warning",
  deadband: 0,
  delay_seconds: 0,
  ...over,
});

const T0 = Date.parse("2025-03-01T00:00:00Z");

/** Feeds [value, seconds after T0] pairs; returns every transition and the final state. */
function run(r: EvaluatorRule, readings: [number, number][], start: RuleState = INITIAL_STATE) {
  let state = start;
  const transitions: Transition[] = [];
  for (const [value, s] of readings) {
    const out = evaluate(r, state, { value, ts: T0 + s * 1000 });
    state = out.state;
    if (out.transition) transitions.push(out.transition);
  }
  return { state, transitions, kinds: transitions.map((t) => t.kind) };
}

describe("conditionHolds: each condition at, above and below the threshold", () => {
  it.each([
    ["gt", 99, false],
    ["gt", 100, false],
    ["gt", 100.001, true],
    ["gte", 99.999, false],
    ["gte", 100, true],
    ["gte", 101, true],
    ["lt", 99.999, true],
    ["lt", 100, false],
    ["lt", 101, false],
    ["lte", 99, true],
    ["lte", 100, true],
    ["lte", 100.001, false],
    ["eq", 100, true],
    ["eq", 100.0001, false],
    ["eq", 99, false],
  ] as const)("%s 100 with %d → %s", (condition, value, expected) => {
    expect(conditionHolds({ condition, threshold: 100 }, value)).toBe(expected);
  });
});

describe("returnsToNormal: the deadband boundary of each condition (threshold 100, deadband 5)", () => {
  it.each([
    // gt clears at or below 95
    ["gt", 95.001, false],
    ["gt", 95, true],
    ["gt", 94, true],
    // gte clears strictly below 95
    ["gte", 95, false],
    ["gte", 94.999, true],
    // lt clears at or above 105
    ["lt", 104.999, false],
    ["lt", 105, true],
    // lte clears strictly above 105
    ["lte", 105, false],
    ["lte", 105.001, true],
    // eq clears when farther than 5 away, on either side
    ["eq", 105, false],
    ["eq", 95, false],
    ["eq", 105.001, true],
    ["eq", 94.999, true],
  ] as const)("%s with %d → %s", (condition, value, expected) => {
    expect(returnsToNormal({ condition, threshold: 100, deadband: 5 }, value)).toBe(expected);
  });

  it("with deadband 0 it is exactly the negation of the condition", () => {
    for (const condition of ["gt", "gte", "lt", "lte", "eq"] as const) {
      for (const value of [99, 99.5, 100, 100.5, 101]) {
        const r = { condition, threshold: 100, deadband: 0 };
        expect(returnsToNormal(r, value)).toBe(!conditionHolds(r, value));
      }
    }
  });

  it("treats a negative deadband as 0", () => {
    expect(returnsToNormal({ condition: "gt", threshold: 100, deadband: -10 }, 100)).toBe(true);
    expect(returnsToNormal({ condition: "gt", threshold: 100, deadband: -10 }, 105)).toBe(false);
  });
});

describe("alarmTypeFor", () => {
  it.each([
    ["gt", "info", "high"],
    ["gt", "warning", "high"],
    ["gt", "critical", "critical_high"],
    ["gte", "warning", "high"],
    ["gte", "critical", "critical_high"],
    ["lt", "info", "low"],
    ["lt", "critical", "critical_low"],
    ["lte", "warning", "low"],
    ["lte", "critical", "critical_low"],
    ["eq", "warning", "high"],
    ["eq", "critical", "critical_high"],
  ] as const)("%s + %s → %s", (condition, severity, type) => {
    expect(alarmTypeFor(condition, severity)).toBe(type);
  });

  it("the raise transition carries the mapped type", () => {
    expect(run(rule({ condition: "lte", severity: "critical" }), [[100, 0]]).transitions[0]).toMatchObject({
      kind: "raise",
      alarmType: "critical_low",
    });
  });
});

describe("evaluate: edge triggering", () => {
  it("raises once while the condition holds, however many readings", () => {
    const readings: [number, number][] = Array.from({ length: 50 }, (_, i) => [150 + i, i]);
    const { kinds, state } = run(rule(), [[90, -1], ...readings]);
    expect(kinds).toEqual(["raise"]);
    expect(state.phase).toBe("active");
  });

  it("raises at the reading that crosses, with its value and time", () => {
    const { transitions } = run(rule(), [
      [90, 0],
      [101, 5],
      [120, 10],
    ]);
    expect(transitions).toEqual([
      { kind: "raise", at: T0 + 5000, value: 101, alarmType: "high", conditionSince: T0 + 5000 },
    ]);
  });

  it("raises on the very first reading when it is already in alarm", () => {
    expect(run(rule(), [[101, 0]]).kinds).toEqual(["raise"]);
  });

  it("raise, return, raise again: each crossing is a new edge", () => {
    const { kinds, transitions } = run(rule(), [
      [101, 0],
      [99, 1],
      [98, 2],
      [102, 3],
      [50, 4],
    ]);
    expect(kinds).toEqual(["raise", "return", "raise", "return"]);
    expect(transitions[1]).toEqual({ kind: "return", at: T0 + 1000, value: 99 });
  });

  it("never raises when the condition never holds", () => {
    expect(
      run(rule(), [
        [100, 0],
        [99, 1],
        [-5, 2],
      ]).kinds,
    ).toEqual([]);
  });

  it("a rebuilt active state does not raise again (restart)", () => {
    const { kinds } = run(rule(), [[150, 10]], activeState(T0));
    expect(kinds).toEqual([]);
    expect(
      run(
        rule(),
        [
          [150, 10],
          [10, 11],
        ],
        activeState(T0),
      ).kinds,
    ).toEqual(["return"]);
  });
});

describe("evaluate: deadband (hysteresis)", () => {
  const r = rule({ deadband: 5 });

  it("stays active inside the band and returns only beyond it", () => {
    const { kinds, transitions } = run(r, [
      [101, 0],
      [99, 1],
      [96, 2],
      [95.5, 3],
      [95, 4],
    ]);
    expect(kinds).toEqual(["raise", "return"]);
    expect(transitions[1]).toMatchObject({ at: T0 + 4000, value: 95 });
  });

  it("chatter around the threshold raises only once", () => {
    const chatter: [number, number][] = [];
    for (let i = 0; i < 40; i++) chatter.push([i % 2 === 0 ? 101 : 98, i]);
    expect(run(r, chatter).kinds).toEqual(["raise"]);
    // The same chatter without a deadband alarms on every crossing.
    expect(run(rule(), chatter).kinds).toHaveLength(40);
  });

  it("lt clears above threshold + deadband", () => {
    const { kinds } = run(rule({ condition: "lt", threshold: 10, deadband: 2 }), [
      [9, 0],
      [11.9, 1],
      [12, 2],
    ]);
    expect(kinds).toEqual(["raise", "return"]);
  });

  it("eq holds only on equality but clears only beyond the band", () => {
    const { kinds } = run(rule({ condition: "eq", threshold: 1, deadband: 0.5 }), [
      [0, 0],
      [1, 1],
      [1.4, 2],
      [0.6, 3],
      [1.6, 4],
      [1, 5],
    ]);
    expect(kinds).toEqual(["raise", "return", "raise"]);
  });

  it("eq with deadband 0 clears on any other value", () => {
    expect(
      run(rule({ condition: "eq", threshold: 1 }), [
        [1, 0],
        [1.000001, 1],
      ]).kinds,
    ).toEqual(["raise", "return"]);
  });
});

describe("evaluate: on-delay (delay_seconds on reading timestamps)", () => {
  const r = rule({ delay_seconds: 10 });

  it("raises only after the condition held for the delay, at that reading", () => {
    const { transitions, state } = run(r, [
      [101, 0],
      [105, 5],
      [110, 9.999],
    ]);
    expect(transitions).toEqual([]);
    expect(state).toMatchObject({ phase: "pending", since: T0 });
    const later = evaluate(r, state, { value: 111, ts: T0 + 10_000 });
    expect(later.transition).toEqual({
      kind: "raise",
      at: T0 + 10_000,
      value: 111,
      alarmType: "high",
      conditionSince: T0,
    });
  });

  it("a dip below the threshold restarts the delay", () => {
    const { kinds, transitions } = run(r, [
      [101, 0],
      [101, 8],
      [100, 9],
      [101, 12],
      [101, 21],
      [101, 22],
    ]);
    expect(kinds).toEqual(["raise"]);
    expect(transitions[0]).toMatchObject({ at: T0 + 22_000, conditionSince: T0 + 12_000 });
  });

  it("a value inside the deadband still restarts a pending delay (the alarm is not raised yet)", () => {
    const { kinds } = run(rule({ delay_seconds: 10, deadband: 5 }), [
      [101, 0],
      [98, 5],
      [101, 11],
    ]);
    expect(kinds).toEqual([]);
  });

  it("silence raises nothing: the delay completes only on a reading", () => {
    const { state, kinds } = run(r, [[101, 0]]);
    expect(kinds).toEqual([]);
    expect(state.phase).toBe("pending");
  });

  it("a single reading after a long gap completes the delay", () => {
    expect(
      run(r, [
        [101, 0],
        [101, 3600],
      ]).kinds,
    ).toEqual(["raise"]);
  });

  it("return to normal is not delayed", () => {
    expect(
      run(r, [
        [101, 0],
        [101, 10],
        [99, 11],
      ]).kinds,
    ).toEqual(["raise", "return"]);
  });
});

describe("evaluate: robustness", () => {
  it("ignores readings older than the last evaluated one", () => {
    const { kinds, state } = run(rule(), [
      [101, 10],
      [50, 5],
      [120, 11],
    ]);
    expect(kinds).toEqual(["raise"]);
    expect(state).toMatchObject({ phase: "active", lastTs: T0 + 11_000 });
  });

  it("a late reading cannot start a delay in the past", () => {
    expect(
      run(rule({ delay_seconds: 5 }), [
        [50, 100],
        [101, 0],
        [101, 6],
      ]).kinds,
    ).toEqual([]);
  });

  it("accepts equal timestamps (two readings of one instant)", () => {
    expect(
      run(rule(), [
        [50, 1],
        [101, 1],
      ]).kinds,
    ).toEqual(["raise"]);
  });

  it("ignores NaN and infinite values and times", () => {
    const s = run(rule(), [[50, 0]]).state;
    for (const reading of [
      { value: Number.NaN, ts: T0 + 1000 },
      { value: Number.POSITIVE_INFINITY, ts: T0 + 1000 },
      { value: 150, ts: Number.NaN },
    ]) {
      const out = evaluate(rule(), s, reading);
      expect(out.transition).toBeNull();
      expect(out.state).toBe(s);
    }
  });

  it("is deterministic and does not mutate its inputs", () => {
    const r = Object.freeze(rule({ delay_seconds: 2, deadband: 1 }));
    const readings: [number, number][] = [
      [101, 0],
      [102, 1],
      [103, 2],
      [99.5, 3],
      [98, 4],
    ];
    expect(run(r, readings)).toEqual(run(r, readings));
    expect(INITIAL_STATE).toEqual({ phase: "normal", lastTs: null });
  });
});

describe("messages and comm loss", () => {
  it("formats rule alarm messages", () => {
    expect(
      ruleAlarmMessage(
        { name: "High pressure", variable_alias: "pressure", condition: "gte", threshold: 100 },
        123.456789,
      ),
    ).toBe("High pressure: pressure = 123.457 (>= 100)");
    expect(formatValue(0.1 + 0.2)).toBe("0.3");
    expect(formatValue(-7)).toBe("-7");
  });

  it("commLossSilence: null before the limit, whole seconds from it", () => {
    expect(commLossSilence(T0, T0 + 299_999, 300)).toBeNull();
    expect(commLossSilence(T0, T0 + 300_000, 300)).toBe(300);
    expect(commLossSilence(T0, T0 + 451_900, 300)).toBe(451);
    expect(commLossSilence(T0 + 10_000, T0, 300)).toBeNull();
  });
});
