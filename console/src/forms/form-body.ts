import type { MessageKey } from "../i18n/i18n.ts";

export type Option = readonly [value: string, label: string];

/**
 * One input of a form that edits an API resource. `name` is the API's field, dotted when nested
 * ("settings.rack"), so the API's 400 naming it lands beside the input (field-errors.ts).
 */
export type FieldSpec = {
  name: string;
  label: MessageKey;
  kind: "text" | "number" | "password" | "select" | "checkbox";
  options?: readonly Option[];
  /** A select's empty choice (the API's default applies), labelled with this key. */
  blank?: MessageKey;
  help?: MessageKey;
};

/** What the inputs hold: text as typed, checkboxes as booleans. */
export type FormValues = Record<string, string | boolean>;

const DECIMAL = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;
/** "0,5" as Colombian keyboards write it: a comma for the decimal point, no grouping. */
const COMMA_DECIMAL = /^[-+]?\d+,\d+$/;

/** A number when the text is one; otherwise the text itself, for the API to name the field. */
export function numberOrText(text: string): number | string {
  const t = text.trim();
  if (DECIMAL.test(t)) return Number(t);
  if (COMMA_DECIMAL.test(t)) return Number(t.replace(",", "."));
  return text;
}

/**
 * The JSON body the form's values make. An empty input is left out, so the API's default (or
 * null, on a PUT) applies and a required one is named by the API's 400; numbers are sent as
 * numbers when they are numbers and as typed otherwise. The console checks nothing itself: the
 * API's validation is the only one, and its messages are what the form shows.
 */
export function formBody(specs: readonly FieldSpec[], values: FormValues): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const spec of specs) {
    const raw = values[spec.name];
    let value: unknown;
    if (spec.kind === "checkbox") value = raw === true;
    else {
      const text = typeof raw === "string" ? raw : "";
      if (text.trim() === "") continue;
      value = spec.kind === "number" ? numberOrText(text) : text;
    }
    setPath(body, spec.name.split("."), value);
  }
  return body;
}

function setPath(target: Record<string, unknown>, path: readonly string[], value: unknown): void {
  const [head, ...rest] = path;
  if (head === undefined) return;
  if (rest.length === 0) {
    target[head] = value;
    return;
  }
  const inner = target[head];
  const next: Record<string, unknown> =
    typeof inner === "object" && inner !== null ? (inner as Record<string, unknown>) : {};
  target[head] = next;
  setPath(next, rest, value);
}

/** An API value as its input shows it: "" for null, numbers as written in JSON. */
export function inputValue(value: unknown): string | boolean {
  if (typeof value === "boolean") return value;
  if (value === null || value === undefined) return "";
  return String(value);
}
