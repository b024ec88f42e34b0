import type { AlarmCondition, AlarmSeverity, EvaluatorRule, RuleAlarmType } from "./rule.ts";

/*
 * The alert-rule evaluator shared by caudal-server and caudal-agent: a pure state machine per
 * (rule, asset). No I/O and no wall clock: time is the readings' own timestamps, so the same
 * readings always give the same alarms, on the server and on an offline site alike.
 *
 * The ISA-18.2 alarm state model, as applied here:
 *   normal  --condition true, delay_seconds = 0-----------------> active   (raise)
 *   normal  --condition true, delay_seconds > 0-----------------> pending
 *   pending --condition still true, held ≥ delay_seconds--------> active   (raise)
 *   pending --condition false-----------------------------------> normal   (on-delay restarts)
 *   active  --value beyond the threshold by more than deadband--> normal   (return)
 *   active  --anything else-------------------------------------> active   (no new raise: edge, not level)
 * Acknowledgement is an operator action kept by the server, not part of this machine.
 */

export type RuleState =
  | { readonly phase: "normal"; readonly lastTs: number | null }
  /** The condition holds since `since` (epoch ms) but not yet for delay_seconds. */
  | { readonly phase: "pending"; readonly since: number; readonly lastTs: number }
  /** Raised at `raisedAt` (epoch ms); waiting for the value to clear the deadband. */
  | { readonly phase: "active"; readonly raisedAt: number; readonly lastTs: number };

/** A (rule, asset) pair that has seen no reading yet. */
export const INITIAL_STATE: RuleState = Object.freeze({ phase: "normal", lastTs: null });

/** The state of an alarm that is known to be active (e.g. rebuilt from storage after a restart). */
export function activeState(raisedAt: number): RuleState {
  return { phase: "active", raisedAt, lastTs: raisedAt };
}

export type Reading = {
  value: number;
  /** Epoch milliseconds of the reading (not of its arrival). */
  ts: number;
};

export type Transition =
  | {
      readonly kind: "raise";
      readonly at: number;
      readonly value: number;
      readonly alarmType: RuleAlarmType;
      /** When the condition started to hold (equals `at` without a delay). */
      readonly conditionSince: number;
    }
  | { readonly kind: "return"; readonly at: number; readonly value: number };

export type Evaluation = { readonly state: RuleState; readonly transition: Transition | null };

/** gt/gte/eq alarm on a high value, lt/lte on a low one; severity critical selects the critical_* type. */
export function alarmTypeFor(condition: AlarmCondition, severity: AlarmSeverity): RuleAlarmType {
  const low = condition === "lt" || condition === "lte";
  if (severity === "critical") return low ? "critical_low" : "critical_high";
  return low ? "low" : "high";
}

/** The alarm condition itself (no deadband): this is what raises, and what an on-delay waits on. */
export function conditionHolds(rule: Pick<EvaluatorRule, "condition" | "threshold">, value: number): boolean {
  const t = rule.threshold;
  switch (rule.condition) {
    case "gt":
      return value > t;
    case "gte":
      return value >= t;
    case "lt":
      return value < t;
    case "lte":
      return value <= t;
    case "eq":
      return value === t;
  }
}

/**
 * Return to normal: the condition is false with the threshold moved by the deadband away from the
 * alarm region (the ISA-18.2 alarm deadband). With deadband 0 this is exactly "the
 * condition is false"; values inside the band keep an active alarm active.
 *   gt:  value <= threshold - deadband        gte: value <  threshold - deadband
 *   lt:  value >= threshold + deadband        lte: value >  threshold + deadband
 *   eq:  |value - threshold| > deadband
 */
export function returnsToNormal(
  rule: Pick<EvaluatorRule, "condition" | "threshold" | "deadband">,
  value: number,
): boolean {
  const t = rule.threshold;
  // A negative or NaN deadband (never valid input) counts as none.
  const d = Math.max(rule.deadband, 0) || 0;
  switch (rule.condition) {
    case "gt":
      return value <= t - d;
    case "gte":
      return value < t - d;
    case "lt":
      return value >= t + d;
    case "lte":
      return value > t + d;
    case "eq":
      return Math.abs(value - t) > d;
  }
}

const normalAt = (ts: number): RuleState => ({ phase: "normal", lastTs: ts });

const unchanged = (state: RuleState): Evaluation => ({ state, transition: null });

function raise(rule: EvaluatorRule, reading: Reading, conditionSince: number): Evaluation {
  return {
    state: { phase: "active", raisedAt: reading.ts, lastTs: reading.ts },
    transition: {
      kind: "raise",
      at: reading.ts,
      value: reading.value,
      alarmType: alarmTypeFor(rule.condition, rule.severity),
      conditionSince,
    },
  };
}

/**
 * One step of the machine. A reading older than the last one this (rule, asset) evaluated is
 * ignored: late, back-filled data must not make a live alarm flap. Non-finite values are ignored.
 * The on-delay is measured between reading timestamps, so it completes on the first reading at or
 * after `since + delay_seconds`; silence alone raises nothing (that is comm_loss's job).
 */
export function evaluate(rule: EvaluatorRule, state: RuleState, reading: Reading): Evaluation {
  const { value, ts } = reading;
  if (!Number.isFinite(value) || !Number.isFinite(ts)) return unchanged(state);
  if (state.lastTs !== null && ts < state.lastTs) return unchanged(state);

  switch (state.phase) {
    case "normal": {
      if (!conditionHolds(rule, value)) return { state: normalAt(ts), transition: null };
      if (!(rule.delay_seconds > 0)) return raise(rule, reading, ts);
      return { state: { phase: "pending", since: ts, lastTs: ts }, transition: null };
    }
    case "pending": {
      if (!conditionHolds(rule, value)) return { state: normalAt(ts), transition: null };
      if (ts - state.since >= rule.delay_seconds * 1000) return raise(rule, reading, state.since);
      return { state: { phase: "pending", since: state.since, lastTs: ts }, transition: null };
    }
    case "active": {
      if (returnsToNormal(rule, value)) {
        return { state: normalAt(ts), transition: { kind: "return", at: ts, value } };
      }
      return { state: { phase: "active", raisedAt: state.raisedAt, lastTs: ts }, transition: null };
    }
  }
}
