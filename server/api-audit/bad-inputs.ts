import { randomUUID } from "node:crypto";
import { bodyCases } from "./body-cases.ts";
import type { JsonSchema, Operation } from "./openapi-model.ts";
import {
  type BaseInput,
  baseInput,
  buildRequest,
  type Case,
  type IdSource,
  REJECT,
  TOLERATE,
} from "./requests.ts";
import { queryViolation } from "./schema-check.ts";

/** A text parameter: a string, or a repeatable one of strings. */
const isText = (schema: JsonSchema) => (schema.items ?? schema).type === "string";

/**
 * NUL in a text filter: PostgreSQL's text cannot hold it (a 500 there) and SQLite matches nothing
 * with it (an empty 200), so every text parameter refuses it, whatever the document declares.
 */
const NUL_TEXT = "a\u0000b";

function queryCandidates(schema: JsonSchema): string[] {
  const values = ["", "Ωñ", "%", "'; DROP TABLE users; --"];
  // Other control characters: refused where the document declares it (a pattern), else tolerated.
  if (isText(schema)) values.push(NUL_TEXT, "\u0001", "x\u001fy", "\u007f");
  if (schema.format === "uuid") values.push("not-a-uuid", "00000000-0000-0000-0000-000000000000");
  if (schema.format === "date-time") {
    values.push(
      "yesterday",
      "2025-13-45T25:61:00Z",
      "+275760-09-13T00:00:00.001Z",
      "9999-12-31T23:59:59.999Z",
      "0001-01-01T00:00:00Z",
      "2025-01-01",
    );
  }
  if (schema.type === "integer" || schema.type === "number") {
    values.push(
      "abc",
      "1.5",
      "-1",
      "0",
      "1e308",
      "99999999999999999999",
      " 1",
      "0x10",
      "NaN",
      "Infinity",
      "-0",
    );
    if (schema.maximum !== undefined) values.push(String(schema.maximum + 1));
  }
  if (schema.enum) values.push("bogus", String(schema.enum[0]).toUpperCase());
  if (schema.maxLength !== undefined) values.push("q".repeat(Math.min(schema.maxLength + 1, 4000)));
  return [...new Set(values)];
}

export function queryCases(op: Operation, input: BaseInput): Case[] {
  const cases: Case[] = [];
  for (const p of op.queryParams) {
    if (p.name === "token") continue;
    if (p.required) {
      const query = { ...input.query };
      delete query[p.name];
      cases.push({
        op,
        label: `query ${p.name} missing`,
        expect: REJECT,
        request: buildRequest(op, { ...input, query }),
      });
    }
    for (const raw of queryCandidates(p.schema)) {
      const bad = raw === NUL_TEXT ? "NUL" : queryViolation(p.schema, raw);
      const expect = bad && bad !== "ambiguous" ? REJECT : TOLERATE;
      const query = { ...input.query, [p.name]: raw };
      const shown = raw.length > 40 ? `"${raw.slice(0, 8)}…" (${raw.length})` : JSON.stringify(raw);
      cases.push({
        op,
        label: `query ${p.name}=${shown}`,
        expect,
        request: buildRequest(op, { ...input, query }),
      });
    }
    if (p.schema.format === "uuid" && p.name.endsWith("project_id")) {
      const query = { ...input.query, [p.name]: randomUUID() };
      cases.push({
        op,
        label: `query ${p.name} = unknown project`,
        expect: { kind: "absent" },
        request: buildRequest(op, { ...input, query }),
      });
    }
    const repeated = `${encodeURIComponent(p.name)}=${encodeURIComponent(input.query[p.name] ?? "1")}`;
    cases.push({
      op,
      label: `query ${p.name} repeated`,
      expect: TOLERATE,
      request: buildRequest(op, input, { extraQuery: `${repeated}&${repeated}` }),
    });
  }
  // Not on DELETE: with the real ids of the base input it would remove the fixture.
  if (op.method !== "DELETE") {
    cases.push({
      op,
      label: "unknown query parameter",
      expect: TOLERATE,
      request: buildRequest(op, input, { extraQuery: "__audit=1" }),
    });
  }
  return cases;
}

export function pathCases(op: Operation, input: BaseInput): Case[] {
  const cases: Case[] = [];
  for (const p of op.pathParams) {
    const bad = [
      "not-a-uuid",
      "123",
      "%20",
      "%00",
      "..%2F..",
      encodeURIComponent("Ωñ🛢️"),
      "x".repeat(3000),
      encodeURIComponent("' OR 1=1 --"),
      "00000000-0000-0000-0000-000000000000",
    ];
    if (p.schema.enum) bad.push("bogus");
    for (const raw of bad) {
      const pathValues = { ...input.pathValues, [p.name]: raw };
      const shown = raw.length > 40 ? `"${raw.slice(0, 8)}…" (${raw.length})` : JSON.stringify(raw);
      cases.push({
        op,
        label: `path ${p.name}=${shown}`,
        expect: REJECT,
        request: buildRequest(op, { ...input, pathValues }),
      });
    }
    if (p.schema.format === "uuid") {
      const pathValues = { ...input.pathValues, [p.name]: randomUUID() };
      cases.push({
        op,
        label: `path ${p.name} = unknown id`,
        expect: { kind: "status", status: 404 },
        request: buildRequest(op, { ...input, pathValues }),
      });
      // Deleting through an upper-case spelling of a real id would remove the fixture.
      if (op.method !== "DELETE") {
        const pathValues2 = { ...input.pathValues, [p.name]: (input.pathValues[p.name] ?? "").toUpperCase() };
        cases.push({
          op,
          label: `path ${p.name} upper-case`,
          expect: TOLERATE,
          request: buildRequest(op, { ...input, pathValues: pathValues2 }),
        });
      }
    }
  }
  return cases;
}

/** Every bad-input case of an operation. */
export function badInputCases(op: Operation, ids: IdSource, queryToken?: string): Case[] {
  const input = baseInput(op, ids, queryToken);
  return [...pathCases(op, input), ...queryCases(op, input), ...bodyCases(op, input)];
}
