import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import type { Role } from "../../shared/roles.ts";
import type { ApiResponse } from "../testing/harness.ts";
import {
  buildTree,
  idOfKind,
  idSource,
  kindOfField,
  kindOfPathParam,
  type ProjectTree,
  startAuditServer,
} from "./fixtures.ts";
import { contractProblems, inGroups, send } from "./http-audit.ts";
import { apiOperations, fetchDocument, type Operation } from "./openapi-model.ts";
import { type BaseInput, baseInput, buildRequest, type IdSlot, idSlots, withId } from "./requests.ts";
import { member } from "./schema-check.ts";

/*
 * Project scoping (CONTRIBUTING, Authorisation; shared/roles.ts): a role lacking a permission gets
 * 403; a resource of a project the caller is not assigned to is a 404, exactly as if it did not
 * exist. Two projects, A and B, each get one of everything; a supervisor, an operador and an
 * anh_reader are assigned to A only. For every operation and every id it names (path, query, body),
 * naming B's resource must answer exactly what naming an unknown id answers — same status, same
 * error code — and never a success. No response to these users may carry any id or name of B.
 */

const t = await startAuditServer();
const operations = apiOperations(await fetchDocument(t));

const ROLES = ["supervisor", "operador", "anh_reader"] as const satisfies readonly Role[];
type ScopedRole = (typeof ROLES)[number];

let A: ProjectTree;
let B: ProjectTree;
const tokens: Record<ScopedRole, string> = { supervisor: "", operador: "", anh_reader: "" };
/** Ids and the marker of B that A's users must never see. */
let secrets: string[] = [];

beforeAll(async () => {
  await t.admin(); // once, before the two trees ask for it concurrently
  [A, B] = await Promise.all([buildTree(t, "A"), buildTree(t, "B")]);
  for (const role of ROLES) tokens[role] = (await t.userWithRole(role, [A.projectId])).token;
  // Ids both trees show (the superadmin who made them) are not B's.
  secrets = [...B.seenIds].filter((id) => !A.seenIds.has(id)).concat(B.marker);
}, 120_000);

afterAll(() => t.stop());

function leaks(res: ApiResponse): string[] {
  const text = res.text.toLowerCase();
  return secrets
    .filter((s) => text.includes(s.toLowerCase()))
    .map((s) => `leaks ${s === B.marker ? "B's name" : `B id ${s}`}`);
}

const isId = (name: string) => kindOfField(name) !== undefined;

function kindOfSlot(op: Operation, slot: IdSlot) {
  if (slot.where === "path") return kindOfPathParam(op.path, slot.name);
  const kind = kindOfField(slot.name);
  if (!kind) throw new Error(`no kind for ${slot.name}`);
  return kind;
}

function describeSlot(slot: IdSlot): string {
  return slot.where === "body" ? `body ${slot.path.join(".")}` : `${slot.where} ${slot.name}`;
}

async function call(op: Operation, input: BaseInput, token: string): Promise<ApiResponse> {
  const query = op.security === "queryToken" ? { ...input.query, token } : input.query;
  return send(t, buildRequest(op, { ...input, query }), token);
}

function errorCode(res: ApiResponse): unknown {
  return member(res.body, "error");
}

/**
 * For each id slot (and all of them at once): B's id against an unknown id. Both must be errors,
 * the same status and code; all slots naming B must be a 403 or a 404.
 */
async function scopeProblems(op: Operation, role: ScopedRole): Promise<string[]> {
  const token = tokens[role];
  const input = baseInput(op, idSource(A, t.clock.now().getTime()));
  const slots = idSlots(op, input, isId);
  if (slots.length === 0) return [];
  const variants: { label: string; b: BaseInput; unknown: BaseInput; allB: boolean }[] = slots.map(
    (slot) => ({
      label: describeSlot(slot),
      b: withId(op, input, slot, idOfKind(B, kindOfSlot(op, slot))),
      unknown: withId(op, input, slot, randomUUID()),
      allB: slots.length === 1,
    }),
  );
  if (slots.length > 1) {
    variants.push({
      label: "every id",
      b: slots.reduce((acc, s) => withId(op, acc, s, idOfKind(B, kindOfSlot(op, s))), input),
      unknown: slots.reduce((acc, s) => withId(op, acc, s, randomUUID()), input),
      allB: true,
    });
  }
  const problems: string[] = [];
  for (const v of variants) {
    // The unknown id first: a faulty B request could otherwise change what the unknown one sees.
    const unknown = await call(op, v.unknown, token);
    const b = await call(op, v.b, token);
    const found = [...contractProblems(b), ...leaks(b), ...leaks(unknown)];
    if (b.status < 400) found.push(`B's resource answered ${b.status}: ${b.text.slice(0, 160)}`);
    else if (b.status !== unknown.status || errorCode(b) !== errorCode(unknown)) {
      found.push(
        `B's resource answers ${b.status} ${String(errorCode(b))}, an unknown id ${unknown.status} ${String(errorCode(unknown))}`,
      );
    }
    if (v.allB && b.status !== 403 && b.status !== 404) found.push(`expected 403 or 404, got ${b.status}`);
    problems.push(...found.map((p) => `${role} ${op.id} [${v.label}]: ${p}`));
  }
  return problems;
}

/** Reads naming only A's resources (or nothing: lists without a filter) must not show B. */
async function readLeaks(op: Operation, role: ScopedRole): Promise<string[]> {
  if (op.method !== "GET") return [];
  const res = await call(op, baseInput(op, idSource(A, t.clock.now().getTime())), tokens[role]);
  return [...contractProblems(res), ...leaks(res)].map((p) => `${role} ${op.id} [A's resources]: ${p}`);
}

describe("the fixtures", () => {
  it("give B something of every kind, and superadmin and admin see B", async () => {
    expect(secrets.length).toBeGreaterThan(20);
    const admin = await t.userWithRole("admin");
    for (const token of [(await t.admin()).token, admin.token]) {
      const res = await t.request<{ id: string }[]>("/api/edge/projects", { token });
      expect(res.body.map((p) => p.id)).toEqual(expect.arrayContaining([A.projectId, B.projectId]));
      const report = await t.request(`/api/anh/reports/${B.reportId}`, { token });
      expect(report.status).toBe(200);
    }
  });
});

const scoped = operations.filter((op) => op.security !== "public" && op.id !== "POST /api/auth/logout");

describe.each(ROLES)("a %s assigned to project A only", (role) => {
  it.each(scoped.map((op): [string, Operation] => [op.id, op]))(
    "%s: B's resources are indistinguishable from unknown ones, and nothing of B shows",
    async (_id, op) => {
      const problems = [...(await scopeProblems(op, role)), ...(await readLeaks(op, role))];
      expect(problems).toEqual([]);
    },
  );

  // anh_reader lacks telemetry:read (shared/roles.ts): the stream refuses it before any scoping.
  if (role !== "anh_reader") {
    it("receives nothing of B on the live stream (GET /api/ws/telemetry)", async () => {
      const ws = new WebSocket(`ws://127.0.0.1:${t.server.port}/api/ws/telemetry?token=${tokens[role]}`);
      const messages: string[] = [];
      ws.on("message", (m) => messages.push(String(m)));
      await once(ws, "open");
      try {
        const admin = (await t.admin()).token;
        const at = new Date(t.clock.now().getTime() - 1000).toISOString();
        // B first, then A: events of one connection are ordered, so once A's arrived B's would have.
        for (const tree of [B, A]) {
          const res = await t.request("/api/telemetry", {
            token: admin,
            body: {
              asset_id: tree.assets.tank,
              timestamp: at,
              readings: [{ variable: "level", value: 250 }],
            },
          });
          expect(res.status).toBe(201);
        }
        const deadline = Date.now() + 5000;
        while (!messages.some((m) => m.includes(A.assets.tank)) && Date.now() < deadline) {
          await new Promise((r) => setTimeout(r, 20));
        }
        expect(messages.some((m) => m.includes(A.assets.tank))).toBe(true);
        expect(
          messages.filter((m) => secrets.some((id) => m.toLowerCase().includes(id.toLowerCase()))),
        ).toEqual([]);
      } finally {
        ws.close();
      }
    });
  }

  it("sees only A in every list without a project filter", async () => {
    const lists = scoped.filter((op) => op.method === "GET" && op.pathParams.length === 0);
    const problems = await inGroups(lists, 6, async (op) => {
      const res = await send(
        t,
        buildRequest(op, { pathValues: {}, query: {}, body: undefined }),
        tokens[role],
      );
      return [...contractProblems(res), ...leaks(res)].map((p) => `${op.id}: ${p}`);
    });
    expect(problems.flat()).toEqual([]);
  });
});

/**
 * A report preview is stamped with the instant it was read (as_of, generated_at): not data of A.
 * So is the overview, and what the clock alone moves in it: the ends of "so far today", the readings
 * expected by now, and the sparklines' window.
 */
function withoutReadInstant(op: Operation, text: string): string {
  if (op.id === "GET /api/anh/reports/preview")
    return text.replace(/"(as_of|generated_at)":"[^"]*"/g, '"$1":"-"');
  if (op.id === "GET /api/dashboard/overview")
    return text
      .replace(/"(as_of|from|to)":"[^"]*"/g, '"$1":"-"')
      .replace(/"(samples_expected|ratio)":[^,}]*/g, '"$1":"-"')
      .replace(/"spark":\[[^\]]*\]/g, '"spark":"-"');
  return text;
}

/** What every read of A's users answers now (reads naming A's ids, and lists without a filter). */
/** A GET that writes by design: each Linux install script carries a freshly issued enrollment code. */
const ISSUES_ON_READ = new Set(["GET /api/edge/projects/{id}/linux-install"]);

async function readsOfA(): Promise<Map<string, string>> {
  const reads = scoped.filter(
    (op) => op.method === "GET" && op.security === "bearer" && !ISSUES_ON_READ.has(op.id),
  );
  const out = new Map<string, string>();
  for (const role of ROLES) {
    const answers = await inGroups(reads, 6, async (op) => {
      const res = await call(op, baseInput(op, idSource(A, t.clock.now().getTime())), tokens[role]);
      return [`${role} ${op.id}`, `${res.status} ${withoutReadInstant(op, res.text)}`] as const;
    });
    for (const [k, v] of answers) out.set(k, v);
  }
  return out;
}

/** Activity in B of every kind the reads above could count: an alarm, a record, a report, a log, a deployment, an asset. */
async function activityInB(): Promise<void> {
  const token = (await t.admin()).token;
  const now = t.clock.now().getTime();
  const post = async (path: string, body?: unknown) => {
    const res = await t.request(path, { token, method: "POST", ...(body === undefined ? {} : { body }) });
    if (res.status >= 300) throw new Error(`B activity ${path}: ${res.status} ${res.text}`);
  };
  // Back to normal, then above the rule again: a second alarm in B.
  for (const [value, ago] of [
    [50, 120_000],
    [500, 60_000],
  ] as const) {
    await post("/api/telemetry", {
      asset_id: B.assets.well,
      timestamp: new Date(now - ago).toISOString(),
      readings: [{ variable: "pressure", value }],
    });
  }
  await post("/api/movements", {
    project_id: B.projectId,
    movement_type: "flare",
    volume_bbls: 7,
    timestamp: new Date(now - 3_600_000).toISOString(),
  });
  await post("/api/anh/reports/generate", { project_id: B.projectId, report_date: B.reportDate });
  await post("/api/edge/agents/logs", { project_id: B.projectId, level: "error", message: "B again" });
  await post(`/api/edge/projects/${B.projectId}/deploy`);
  await post("/api/edge/assets", { project_id: B.projectId, name: "B tank 2", asset_type: "tank" });
}

describe("non-interference", () => {
  it("activity in B changes nothing that A's users read (counts and aggregates included)", async () => {
    const before = await readsOfA();
    await activityInB();
    const after = await readsOfA();
    const changed = [...before].filter(([k, v]) => after.get(k) !== v).map(([k]) => k);
    expect(changed).toEqual([]);
  });
});
