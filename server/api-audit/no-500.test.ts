import { describe, expect, it } from "vitest";
import { badInputCases } from "./bad-inputs.ts";
import { auditSetup } from "./fixtures.ts";
import { caseProblems, contractProblems, inGroups, responseProblems, send } from "./http-audit.ts";
import type { Operation } from "./openapi-model.ts";
import { baseInput, buildRequest } from "./requests.ts";

/*
 * Robustness audit driven by the served OpenAPI document: for every operation, inputs generated from
 * its declared schemas (wrong types, out-of-range and malformed values, missing fields, bodies that
 * are not JSON objects, unknown ids) are sent as the superadmin, so only validation stands in the way.
 * Each must answer below 500 with the version headers (spec §9), every error as {error, message}
 * (spec §7), and every input that breaks a declared constraint with a 4xx whose 400 message names
 * the field (CONTRIBUTING). A new endpoint is covered as soon as it is in the document.
 */

const audit = await auditSetup();
const { t, operations } = audit;

/** Ending the superadmin's own session would end the audit's. */
const SKIPPED = new Set(["POST /api/auth/logout"]);

describe("the document", () => {
  it("lists the API's operations; each protected one declares 401, each with input 400", () => {
    expect(operations.length).toBeGreaterThan(70);
    const missing = operations.flatMap((op) => [
      ...(op.security !== "public" && !op.declaredStatuses.includes(401) ? [`${op.id}: no 401`] : []),
      ...((op.body || op.pathParams.length > 0) && !op.declaredStatuses.includes(400)
        ? [`${op.id}: no 400`]
        : []),
    ]);
    expect(missing).toEqual([]);
  });
});

describe.each(operations.filter((op) => !SKIPPED.has(op.id)).map((op): [string, Operation] => [op.id, op]))(
  "%s",
  (_id, op) => {
    // A valid DELETE would remove the fixture the other cases name; deletion has its own tests.
    if (op.method !== "DELETE") {
      it("answers its smallest valid request without a server error", async () => {
        const res = await send(t, buildRequest(op, baseInput(op, audit.ids, audit.token)), audit.token);
        expect([...contractProblems(res), ...responseProblems(op, res)]).toEqual([]);
      });
    }

    it("refuses every generated bad input with a 4xx in the error shape", async () => {
      const cases = badInputCases(op, audit.ids, audit.token);
      const problems = (
        await inGroups(cases, 8, async (c) => caseProblems(c, await send(t, c.request, audit.token)))
      ).flat();
      // A `__proto__` key in a body must not reach Object.prototype of the (same-process) server.
      expect(Object.hasOwn(Object.prototype, "auditPolluted")).toBe(false);
      expect(problems).toEqual([]);
    });
  },
);

/*
 * The sweep stored every odd value the API accepted (huge and tiny numbers, unicode, far dates).
 * Whatever reads or aggregates them later must still answer without a server error, in the shape
 * the document declares.
 */
describe("after the sweep", () => {
  it("still reports the day that holds the accepted odd values (POST /api/anh/reports/generate)", async () => {
    const zone = "America/Bogota"; // the default time zone of a project
    const day = new Intl.DateTimeFormat("en-CA", { timeZone: zone }).format(t.clock.now());
    t.clock.advance(2 * 86_400_000); // the day has closed
    const fresh = (await t.admin()).token;
    const res = await t.request("/api/anh/reports/generate", {
      token: fresh,
      body: { project_id: audit.ids.idFor("project_id"), report_date: day },
    });
    expect(contractProblems(res)).toEqual([]);
    expect([201, 409], res.text).toContain(res.status);
  });

  it("answers every read without a server error and in its declared schema", async () => {
    const fresh = (await t.admin()).token;
    const reads = operations.filter((op) => op.method === "GET");
    const problems = await inGroups(reads, 6, async (op) => {
      const res = await send(t, buildRequest(op, baseInput(op, audit.ids, fresh)), fresh);
      return [...contractProblems(res), ...responseProblems(op, res)].map((p) => `${op.id}: ${p}`);
    });
    expect(problems.flat()).toEqual([]);
  });
});
