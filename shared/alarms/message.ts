import { type AlarmCondition, CONDITION_SYMBOLS } from "./rule.ts";

/** Numbers as people read them: at most 6 significant digits, no exponent for ordinary values. */
export function formatValue(value: number): string {
  if (Number.isInteger(value)) return String(value);
  return String(Number(value.toPrecision(6)));
}

/** The text of an alarm raised by a rule, the same on the server and on the agent. */
export function ruleAlarmMessage(
  rule: { name: string; variable_alias: string; condition: AlarmCondition; threshold: number },
  value: number,
): string {
  const symbol = CONDITION_SYMBOLS[rule.condition];
  return `${rule.name}: ${rule.variable_alias} = ${formatValue(value)} (${symbol} ${formatValue(rule.threshold)})`;
}

/** The text of a communication-loss alarm. */
export function commLossMessage(assetName: string, silentSeconds: number, limitSeconds: number): string {
  return `${assetName}: no data for ${silentSeconds} s (limit ${limitSeconds} s)`;
}

/**
 * The limit a communication-loss message names, in seconds; null for any other text. A client
 * that words the alarm in its own language reads it here (the alarm's value is the silence).
 */
export function commLossLimit(message: string): number | null {
  const m = / \(limit (\d+) s\)$/.exec(message);
  return m ? Number(m[1]) : null;
}
