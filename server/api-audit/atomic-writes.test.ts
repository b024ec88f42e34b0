import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tableProbe } from "../testing/table-probe.ts";
import { bodyCases } from "./body-cases.ts";
import { ChangeWatch } from "./db-snapshot.ts";
import {
  ASSET_TYPES,
  buildTree,
  idOfKind,
  idSource,
  type Kind,
  kindOfField,
  kindOfPathParam,
  type ProjectTree,
  startAuditServer,
} from "./fixtures.ts";
import { contractProblems, send } from "./http-audit.ts";
import { apiOperations, fetchDocument, type Operation } from "./openapi-model.ts";
import {
  type AuditRequest,
  type BaseInput,
  baseInput,
  buildRequest,
  type IdSlot,
  idSlots,
  withId,
} from "./requests.ts";

/*
 * Writes are all-or-nothing (CONTRIBUTING: "validate everything before writing"; DESIGN.md §3:
 * "nothing half-written"). For every create/replace operation, each request that breaks one field —
 * a wrong type or range, a missing field, an unknown id, an id of the wrong kind or of another
 * project, a broken item after a valid one in an array — is refused and leaves every table of the
 * database exactly as it was (row counts and contents, the audit log included).
 */

const t = await startAuditServer();
const writes = apiOperations(await fetchDocument(t)).filter(
  (op) => op.body !== undefined && op.method !== "GET" && op.method !== "DELETE",
);

/** Documented in the operation's field description ("A well of the same project", "An asset of type meter"). */
const ASSET_TYPE_OF_SLOT: Record<string, (typeof ASSET_TYPES)[number]> = {
  "POST /api/well-tests asset_id": "well",
  "POST /api/meters/readings meter_id": "meter",
};

const KINDS: Kind[] = [
  "project",
  "asset",
  "meter",
  "device",
  "variable",
  "rule",
  "alarm",
  "report",
  "invoice",
  "user",
  "enrollment_code",
  "installer_build",
];

let A: ProjectTree;
let B: ProjectTree;
let token = "";
let watch: ChangeWatch;

beforeAll(async () => {
  token = (await t.admin()).token;
  [A, B] = await Promise.all([buildTree(t, "A"), buildTree(t, "B")]);
  watch = new ChangeWatch(tableProbe(t.server));
}, 120_000);

afterAll(() => t.stop());

/**
 * An accepted case (a valid id of B, say) may change a project's configuration, and a project
 * whose auto_deploy it turned on deploys about 2 s later, in the background. Such a deployment is
 * the earlier request's doing: wait for it before the next case is compared.
 */
async function settled(): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (t.server.autoDeploy.pending > 0) {
    if (Date.now() > deadline) throw new Error("auto-deploy still pending after 30 s");
    await new Promise((r) => setTimeout(r, 50));
  }
}

const isId = (name: string) => kindOfField(name) !== undefined;

function kindOfSlot(op: Operation, slot: IdSlot): Kind {
  if (slot.where === "path") return kindOfPathParam(op.path, slot.name);
  return kindOfField(slot.name) ?? "project";
}

type WriteCase = { label: string; request: AuditRequest; mustFail: boolean };

/** Ids of other kinds, of B, of the wrong asset type: each in one slot, the rest of the request valid. */
function idCases(op: Operation, input: BaseInput): WriteCase[] {
  const slots = idSlots(op, input, isId);
  // Users belong to no project: a user of "B" beside a project of A is not a cross reference.
  const scoped = slots.filter((s) => kindOfSlot(op, s) !== "user");
  const cases: WriteCase[] = [];
  for (const slot of slots) {
    const kind = kindOfSlot(op, slot);
    const where = slot.where === "body" ? `body ${slot.path.join(".")}` : `${slot.where} ${slot.name}`;
    const add = (label: string, id: string, mustFail: boolean) =>
      cases.push({
        label: `${where} = ${label}`,
        request: buildRequest(op, withId(op, input, slot, id)),
        mustFail,
      });
    // With another project-owned id of A beside it, B's id is a reference across projects.
    add("B's", idOfKind(B, kind), kind !== "user" && scoped.length > 1);
    for (const other of KINDS) {
      const sameThing =
        other === kind || (kind === "asset" && other === "meter") || (kind === "meter" && other === "asset");
      if (!sameThing) add(`A's ${other} id`, idOfKind(A, other), true);
    }
    const required = ASSET_TYPE_OF_SLOT[`${op.method} ${op.path} ${slot.name}`];
    if (required) {
      for (const type of ASSET_TYPES.filter((x) => x !== required)) add(`A's ${type}`, A.assets[type], true);
    }
    add("an unknown id", randomUUID(), true);
  }
  return cases;
}

describe.each(writes.map((op): [string, Operation] => [op.id, op]))("%s", (_id, op) => {
  it("refuses each broken request without writing anything", async () => {
    const input = baseInput(op, idSource(A, t.clock.now().getTime()));
    const cases: WriteCase[] = [
      ...bodyCases(op, input)
        .filter((c) => c.expect.kind === "reject")
        .map((c) => ({ label: c.label, request: c.request, mustFail: true })),
      ...idCases(op, input),
    ];
    const problems: string[] = [];
    // One at a time: the database is compared around each request.
    for (const c of cases) {
      await settled();
      await watch.mark();
      const res = await send(t, c.request, token);
      const changed = await watch.changed();
      const found = contractProblems(res);
      if (c.mustFail && res.status < 400) found.push(`accepted (${res.status}): ${res.text.slice(0, 160)}`);
      if (res.status >= 400 && changed.length > 0)
        found.push(`refused with ${res.status} but wrote: ${changed.join(", ")}`);
      problems.push(...found.map((p) => `[${c.label}]: ${p}`));
    }
    expect(problems).toEqual([]);
  });
});
