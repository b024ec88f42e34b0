import { randomUUID } from "node:crypto";
import type { JsonSchema, Operation } from "./openapi-model.ts";
import {
  type BaseInput,
  buildRequest,
  type Case,
  type Expectation,
  effectiveValue,
  REJECT,
  REMOVE,
  serialise,
  TOLERATE,
  withValue,
} from "./requests.ts";
import { member, violation } from "./schema-check.ts";

/** Values that break (or stress) a field, by what the field declares. */
function candidates(schema: JsonSchema, name: string): unknown[] {
  const values: unknown[] = ["42", 42, true, null, {}, [], "true"];
  if (schema.type === "string" || schema.enum) {
    values.push(
      "",
      " ",
      "x".repeat(100_000),
      "Ωñ 🛢️ 测试",
      "NaN",
      "Infinity",
      "\u0000",
      "'; DROP TABLE users; --",
    );
    if (schema.enum) values.push("bogus", String(schema.enum[0]).toUpperCase());
    if (schema.maxLength !== undefined && schema.maxLength < 100_000)
      values.push("y".repeat(schema.maxLength + 1));
    switch (schema.format) {
      case "uuid":
        values.push("not-a-uuid", randomUUID().toUpperCase(), "00000000-0000-0000-0000-000000000000");
        break;
      case "date-time":
        values.push(
          "2025-13-45T25:61:00Z",
          "yesterday",
          "2025-01-01",
          "2025-06-01 05:00:00",
          "+275760-09-13T00:00:00.001Z",
          "9999-12-31T23:59:59.999Z",
          "1970-01-01T00:00:00Z",
          "2025-06-01T05:00:00+14:00",
        );
        break;
      case "date":
        values.push("2025-02-30", "0000-01-01", "9999-12-31", "2025-1-1", "2025-01-01T00:00:00Z");
        break;
      case "email":
        values.push("not-an-email", "a@b", `${"x".repeat(300)}@caudal.test`);
        break;
    }
  }
  if (schema.type === "number" || schema.type === "integer") {
    values.push(
      -1,
      0,
      1.5,
      1e308,
      -1e308,
      9_007_199_254_740_994,
      65_536,
      "@@NEG_ZERO@@",
      "@@INF@@",
      "@@NEG_INF@@",
    );
    if (schema.maximum !== undefined) values.push(schema.maximum + 1);
    if (schema.minimum !== undefined) values.push(schema.minimum - 1);
  }
  if (schema.type === "array") values.push([[]], [null]);
  if (name.endsWith("_id") && schema.format === "uuid") values.push("@@UNKNOWN_ID@@");
  return [...new Map(values.map((v) => [JSON.stringify(v) ?? String(v), v])).values()];
}

type Slot = { path: (string | number)[]; schema: JsonSchema; name: string; required: boolean };

/** Every field of the base body (descending into present objects and array items). */
function slots(schema: JsonSchema, value: unknown, path: (string | number)[] = []): Slot[] {
  const out: Slot[] = [];
  if (schema.type === "object" && value && typeof value === "object" && !Array.isArray(value)) {
    const required = new Set(schema.required ?? []);
    for (const [k, sub] of Object.entries(schema.properties ?? {})) {
      out.push({ path: [...path, k], schema: sub, name: k, required: required.has(k) });
      const present = member(value, k);
      if (present !== undefined)
        out.push(...slots(sub, present, [...path, k]).filter((s) => s.path.length > path.length + 1));
    }
  }
  if (schema.type === "array" && Array.isArray(value) && schema.items && value.length > 0) {
    // Inside an array the broken item follows a valid one: a partial write would show.
    out.push({ path: [...path, 1], schema: schema.items, name: `${path.at(-1) ?? ""}[]`, required: true });
    out.push(...slots(schema.items, value[0], [...path, 1]).filter((s) => s.path.length > path.length + 1));
  }
  return out;
}

const dotted = (path: (string | number)[]) => path.map(String).join(".");

/** Cases that break one body field at a time, plus missing required fields and whole-body breakage. */
export function bodyCases(op: Operation, input: BaseInput): Case[] {
  if (!op.body) return [];
  const cases: Case[] = [];
  const schema = op.body;
  const add = (label: string, expect: Expectation, body: unknown, field?: string) => {
    const request = buildRequest(op, { ...input, body });
    cases.push(field ? { op, label, expect, request, field } : { op, label, expect, request });
  };
  for (const slot of slots(schema, input.body)) {
    const field = dotted(slot.path);
    if (slot.required && typeof slot.path.at(-1) === "string")
      add(`body ${field} missing`, REJECT, withValue(input.body, schema, slot.path, REMOVE), field);
    for (const raw of candidates(slot.schema, slot.name)) {
      if (raw === "@@UNKNOWN_ID@@") {
        add(
          `body ${field} = unknown id`,
          REJECT,
          withValue(input.body, schema, slot.path, randomUUID()),
          field,
        );
        continue;
      }
      const bad = violation(slot.schema, effectiveValue(raw));
      const shown =
        typeof raw === "string" && raw.length > 40
          ? `"${raw.slice(0, 12)}…" (${raw.length})`
          : JSON.stringify(raw);
      add(
        `body ${field} = ${shown}${bad ? ` (${bad})` : ""}`,
        bad ? REJECT : TOLERATE,
        withValue(input.body, schema, slot.path, raw),
        field,
      );
    }
  }
  const whole: [string, string][] = [
    ["not JSON", "{not json"],
    ["empty body", ""],
    ["JSON null", "null"],
    ["JSON array", "[]"],
    ["array of the valid body", serialise([input.body])],
    ["JSON number", "42"],
    ["JSON string", '"text"'],
    ["deeply nested JSON", `${'{"a":'.repeat(5000)}1${"}".repeat(5000)}`],
  ];
  for (const [label, rawBody] of whole)
    cases.push({ op, label, expect: REJECT, request: buildRequest(op, input, { rawBody }) });
  const valid = serialise(input.body);
  cases.push({
    op,
    label: "valid body as text/plain",
    expect: REJECT,
    request: buildRequest(op, input, { rawBody: valid, headers: { "content-type": "text/plain" } }),
  });
  const extra = valid.replace(/^\{/, '{"__audit_unknown":{"x":1},');
  cases.push({
    op,
    label: "extra unknown field",
    expect: TOLERATE,
    request: buildRequest(op, input, { rawBody: extra }),
  });
  const proto = valid.replace(
    /^\{/,
    '{"__proto__":{"auditPolluted":true},"constructor":{"prototype":{"auditPolluted":true}},',
  );
  cases.push({
    op,
    label: "__proto__ and constructor keys",
    expect: TOLERATE,
    request: buildRequest(op, input, { rawBody: proto }),
  });
  const big = valid.replace(/^\{/, `{"__audit_pad":"${"p".repeat(2_000_000)}",`);
  cases.push({
    op,
    label: "2 MB body",
    expect: TOLERATE,
    request: buildRequest(op, input, { rawBody: big }),
  });
  return cases;
}
