import { describe, expect, it } from "vitest";
import { auditSetup } from "./fixtures.ts";
import { contractProblems, responseProblems, send } from "./http-audit.ts";
import type { Operation } from "./openapi-model.ts";
import { baseInput, buildRequest } from "./requests.ts";

/*
 * Concurrency audit driven by the served OpenAPI document: every write operation gets its smallest
 * valid request several times at once, as the superadmin. Whatever the engine lets interleave
 * (PostgreSQL runs these transactions side by side at READ COMMITTED; SQLite has one writer), each
 * answer must be one the document declares, below 500: a check that a concurrent transaction
 * made stale must end as the check's own 4xx, never as a constraint's error. Found this way: two
 * users given one email, two corrections of one record, one alias on two devices of one asset.
 */

const audit = await auditSetup();
const { t, operations } = audit;

/** How many copies of a request run at once. */
const AT_ONCE = 6;

/** Ending the superadmin's own session would end the audit's. */
const SKIPPED = new Set(["POST /api/auth/logout"]);
const writes = operations.filter(
  (op) => !SKIPPED.has(op.id) && op.method !== "DELETE" && op.method !== "GET",
);
/**
 * A DELETE removes the fixture the other operations name, so the deletes run after every other
 * write, each before the one that would cascade to it: variables, devices, assets, the project.
 */
const DELETE_ORDER = [
  "/api/edge/variables/{id}",
  "/api/edge/devices/{id}",
  "/api/edge/assets/{id}",
  "/api/edge/projects/{id}",
];
const deletes = operations
  .filter((op) => op.method === "DELETE")
  .sort((a, b) => DELETE_ORDER.indexOf(a.path) - DELETE_ORDER.indexOf(b.path));

it("covers the API's write operations", () => {
  expect(writes.length).toBeGreaterThan(40);
  expect(deletes.length).toBeGreaterThan(5);
});

/** Sends `op`'s smallest valid request AT_ONCE times at once: the statuses, and what is wrong. */
async function raced(op: Operation): Promise<{ statuses: number[]; problems: string[] }> {
  const request = buildRequest(op, baseInput(op, audit.ids, audit.token));
  const answers = await Promise.all(Array.from({ length: AT_ONCE }, () => send(t, request, audit.token)));
  const problems = answers.flatMap((res, i) =>
    [...contractProblems(res), ...responseProblems(op, res)].map((p) => `copy ${i + 1}: ${p}`),
  );
  return { statuses: answers.map((res) => res.status), problems };
}

/**
 * Writes that one request wins: the copies after it find its result (a taken email or alias, a
 * report already submitted) and answer 409. SQLite's single writer gives this by itself; on
 * PostgreSQL only a lock or a row-count check does.
 */
const ONE_WINS: Record<string, number> = {
  "POST /api/admin/users": 201,
  "POST /api/auth/register": 201,
  "POST /api/edge/devices/{device_id}/variables": 201,
  "POST /api/anh/reports/{id}/submit": 200,
};

describe.each(writes.map((op): [string, Operation] => [op.id, op]))("%s", (_id, op) => {
  it(`${AT_ONCE} identical valid requests at once: every answer declared, none a server error`, async () => {
    const { statuses, problems } = await raced(op);
    expect(problems).toEqual([]);
    const winner = ONE_WINS[op.id];
    if (winner !== undefined) expect(statuses.sort()).toEqual([winner, ...new Array(AT_ONCE - 1).fill(409)]);
  });
});

it("names only write operations among those one request wins", () => {
  expect(Object.keys(ONE_WINS).filter((id) => !writes.some((op) => op.id === id))).toEqual([]);
});

describe.each(deletes.map((op): [string, Operation] => [op.id, op]))("%s", (_id, op) => {
  it(`${AT_ONCE} at once: none a server error, and at most one deletes (204); the others find nothing`, async () => {
    const { statuses, problems } = await raced(op);
    expect(problems).toEqual([]);
    // One audit entry per deletion: a second 204 would be a second "delete" of one row.
    expect(statuses.filter((s) => s === 204).length).toBeLessThanOrEqual(1);
  });
});
