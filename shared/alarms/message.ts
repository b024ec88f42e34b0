import { type AlarmCondition, CONDITION_SYMBOLS } from "./rule.ts";

// In a module of their own, free of zod: the console reads them too (console/src/app/alarm-text.ts).
export { commLossLimit, commLossMessage } from "./comm-loss-message.ts";

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
