import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTree, idSource, startAuditServer } from "./fixtures.ts";
import { contractProblems, responseProblems, send } from "./http-audit.ts";
import { apiOperations, fetchDocument, type Operation } from "./openapi-model.ts";
import { baseInput, buildRequest } from "./requests.ts";

/*
 * Concurrency audit driven by the served OpenAPI document: every write operation gets its smallest
 * valid request several times at once, as the superadmin. Whatever the engine lets interleave
 * (PostgreSQL runs these transactions side by side at READ COMMITTED; SQLite has one writer), each
 * answer must be one the document declares, below 500: a check that a concurrent transaction
 * made stale must end as the check's own 4xx, never as a constraint's error. Found this way: two
 * users given one email, two corrections of one record, one alias on two devices of one asset.
 */

const t = await startAuditServer();
const operations = apiOperations(await fetchDocument(t));

/** How many copies of a request run at once. */
const AT_ONCE = 6;

/**
 * Ending the superadmin's own session would end the audit's. A DELETE would remove the fixture the
 * other operations name; deletion's races have their own tests.
 */
const SKIPPED = new Set(["POST /api/auth/logout"]);
const writes = operations.filter(
  (op) => !SKIPPED.has(op.id) && op.method !== "DELETE" && op.method !== "GET",
);

let token = "";
let ids: ReturnType<typeof idSource>;

beforeAll(async () => {
  token = (await t.admin()).token;
  ids = idSource(await buildTree(t, "A"), t.clock.now().getTime());
}, 60_000);

afterAll(() => t.stop());

it("covers the API's write operations", () => {
  expect(writes.length).toBeGreaterThan(40);
});

describe.each(writes.map((op): [string, Operation] => [op.id, op]))("%s", (_id, op) => {
  it(`${AT_ONCE} identical valid requests at once: every answer declared, none a server error`, async () => {
    const request = buildRequest(op, baseInput(op, ids, token));
    const answers = await Promise.all(Array.from({ length: AT_ONCE }, () => send(t, request, token)));
    const problems = answers.flatMap((res, i) =>
      [...contractProblems(res), ...responseProblems(op, res)].map((p) => `copy ${i + 1}: ${p}`),
    );
    expect(problems).toEqual([]);
  });
});
