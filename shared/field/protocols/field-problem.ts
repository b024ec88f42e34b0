import type { z } from "zod";

/** One broken rule of a device or variable: the field it concerns (a dotted path) and why. */
export type FieldProblem = { field: string; message: string };

/** zod issues as field problems, their paths under `prefix` ("settings"). */
export function zodProblems(error: z.ZodError, prefix: string): FieldProblem[] {
  return error.issues.map((i) => ({
    field: [prefix, ...i.path.map(String)].filter((p) => p !== "").join("."),
    message: i.message,
  }));
}

/** "field: message; field: message", the house format of a 400 and of an agent's refusal. */
export function describeProblems(problems: readonly FieldProblem[], where = ""): string {
  return problems.map((p) => `${where}${p.field}: ${p.message}`).join("; ");
}

/** Text a PLC address or login may hold: no whitespace at the ends, no C0 controls or DEL. */
export function hasControlCharacters(value: string): boolean {
  for (const ch of value) {
    const code = ch.charCodeAt(0);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}
