// zod-openapi must extend zod before shared/roles.ts (reached through the schema) builds its enum.
import "@hono/zod-openapi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AUDIT_VERIFY_BATCH } from "../../services/audit/verify-audit.ts";
import { auditHash, auditHashInput } from "../../store/audit-chain.ts";
import { TestServer } from "../../testing/harness.ts";
import { tableProbe } from "../../testing/table-probe.ts";

type Verification = {
  valid: boolean;
  entries: number;
  head?: { seq: number; hash: string } | null;
  broken_at?: { seq: number; id: string | null; reason: string };
};
type Row = {
  seq: number;
  id: string;
  at: number;
  user_id: string | null;
  project_id: string | null;
  entity: string;
  entity_id: string;
  action: string;
  before: string | null;
  after: string | null;
  prev_hash: string;
  hash: string;
};

/** Each test tampers with its own server's log. */
describe("GET /api/audit/verify", () => {
  let t: TestServer;
  let admin: string;

  const verify = async (token = admin) => t.request<Verification>("/api/audit/verify", { token });
  const probe = () => tableProbe(t.server);
  const row = async (seq: number) => {
    const [found] = await probe().rows<Row>("audit_log", { seq });
    if (!found) throw new Error(`no audit entry ${seq}`);
    return found;
  };
  const total = () => probe().count("audit_log");
  /** An attacker with file access: lifts the guard triggers (migration 0003) first; they are back after. */
  const unguarded = (work: () => Promise<void>) => probe().withoutTriggers("audit_log", work);
  const reinsert = (r: Row) =>
    probe().run(
      `INSERT INTO audit_log (seq, id, at, user_id, project_id, entity, entity_id, action, before, after, prev_hash, hash)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        r.seq,
        r.id,
        r.at,
        r.user_id,
        r.project_id,
        r.entity,
        r.entity_id,
        r.action,
        r.before,
        r.after,
        r.prev_hash,
        r.hash,
      ],
    );

  beforeAll(async () => {
    t = await TestServer.start();
    admin = (await t.admin()).token;
    const project = await t.project();
    for (let i = 0; i < 6; i++) {
      const res = await t.request("/api/movements", {
        token: admin,
        body: {
          project_id: project,
          movement_type: "loss",
          volume_bbls: i,
          timestamp: "2025-06-01T05:00:00Z",
        },
      });
      expect(res.status).toBe(201);
    }
  });
  afterAll(async () => t.stop());

  it("an untouched chain is valid; head names the newest entry", async () => {
    const res = await verify();
    expect(res.status).toBe(200);
    const n = await total();
    expect(n).toBeGreaterThanOrEqual(8);
    expect(res.body).toEqual({ valid: true, entries: n, head: { seq: n, hash: (await row(n)).hash } });
  });

  it("the storage refuses UPDATE and DELETE of entries", async () => {
    await expect(probe().run("UPDATE audit_log SET after = NULL WHERE seq = 2")).rejects.toThrow(
      /append-only/,
    );
    await expect(probe().run("DELETE FROM audit_log WHERE seq = 2")).rejects.toThrow(/append-only/);
    expect((await row(2)).after).not.toBeNull();
  });

  it("an edited `after` is a hash mismatch at that seq", async () => {
    const original = await row(4);
    await unguarded(async () => {
      const forged = JSON.stringify({ ...JSON.parse(original.after ?? "{}"), volume_bbls: 99999 });
      await probe().run("UPDATE audit_log SET after = ? WHERE seq = 4", [forged]);
      expect((await verify()).body).toEqual({
        valid: false,
        entries: 3,
        broken_at: { seq: 4, id: original.id, reason: "hash mismatch" },
      });
      await probe().run("UPDATE audit_log SET after = ? WHERE seq = 4", [original.after]);
    });
    expect((await verify()).body.valid).toBe(true);
  });

  it("an edited entity_id is a hash mismatch; so is `after` that is no longer JSON", async () => {
    const original = await row(5);
    await unguarded(async () => {
      await probe().run("UPDATE audit_log SET entity_id = ? WHERE seq = 5", [crypto.randomUUID()]);
      expect((await verify()).body.broken_at).toEqual({ seq: 5, id: original.id, reason: "hash mismatch" });
      await probe().run("UPDATE audit_log SET entity_id = ?, after = '{broken' WHERE seq = 5", [
        original.entity_id,
      ]);
      expect((await verify()).body.broken_at).toEqual({ seq: 5, id: original.id, reason: "hash mismatch" });
      await probe().run("UPDATE audit_log SET after = ? WHERE seq = 5", [original.after]);
    });
    expect((await verify()).body.valid).toBe(true);
  });

  it("a deleted entry breaks the next one's prev_hash", async () => {
    const removed = await row(3);
    const next = await row(4);
    await unguarded(async () => {
      await probe().run("DELETE FROM audit_log WHERE seq = 3");
      expect((await verify()).body).toEqual({
        valid: false,
        entries: 2,
        broken_at: { seq: 4, id: next.id, reason: "prev_hash mismatch" },
      });
      await reinsert(removed);
    });
    expect((await verify()).body.valid).toBe(true);
  });

  it("a deleted entry is still found when the rest of the chain was rehashed (seq gap)", async () => {
    const n = await total();
    const saved = await Promise.all(Array.from({ length: n - 2 }, (_, i) => row(i + 3)));
    await unguarded(async () => {
      await probe().run("DELETE FROM audit_log WHERE seq = 3");
      let prevHash = (await row(2)).hash;
      for (let seq = 4; seq <= n; seq++) {
        const r = await row(seq);
        const hash = auditHash(
          auditHashInput({
            id: r.id,
            at: new Date(r.at),
            userId: r.user_id,
            projectId: r.project_id,
            entity: r.entity,
            entityId: r.entity_id,
            action: r.action,
            before: r.before === null ? null : JSON.parse(r.before),
            after: r.after === null ? null : JSON.parse(r.after),
            prevHash,
          }),
        );
        await probe().run("UPDATE audit_log SET prev_hash = ?, hash = ? WHERE seq = ?", [
          prevHash,
          hash,
          seq,
        ]);
        prevHash = hash;
      }
      expect((await verify()).body.broken_at).toEqual({ seq: 4, id: (await row(4)).id, reason: "seq gap" });
      await probe().run("DELETE FROM audit_log WHERE seq > 2");
      for (const r of saved) await reinsert(r);
    });
    expect((await verify()).body.valid).toBe(true);
  });

  it("removing the newest entries is reported as truncated", async () => {
    const n = await total();
    const newest = await row(n);
    await unguarded(async () => {
      await probe().run("DELETE FROM audit_log WHERE seq = ?", [n]);
      expect((await verify()).body).toEqual({
        valid: false,
        entries: n - 1,
        broken_at: { seq: n, id: null, reason: "truncated" },
      });
      await reinsert(newest);
    });
    expect((await verify()).body.valid).toBe(true);
  });

  it("walks past its read batches: a forged entry deep in a long chain is found", async () => {
    await t.server.store.transaction(async (tx) => {
      for (let i = 0; i < AUDIT_VERIFY_BATCH * 2.5; i++) {
        await tx.audit.append({
          at: new Date(),
          userId: null,
          projectId: null,
          entity: "bulk",
          entityId: String(i),
          action: "create",
          before: null,
          after: { i },
        });
      }
    });
    const n = await total();
    expect((await verify()).body).toMatchObject({ valid: true, entries: n });
    const target = n - 10;
    const original = await row(target);
    await unguarded(async () => {
      await probe().run(`UPDATE audit_log SET after = '{"i":-1}' WHERE seq = ?`, [target]);
      expect((await verify()).body).toEqual({
        valid: false,
        entries: target - 1,
        broken_at: { seq: target, id: original.id, reason: "hash mismatch" },
      });
      await probe().run("UPDATE audit_log SET after = ? WHERE seq = ?", [original.after, target]);
    });
    expect((await verify()).body.valid).toBe(true);
  });

  it("401 without a token; 403 for every role but superadmin and admin", async () => {
    expect((await t.request("/api/audit/verify")).status).toBe(401);
    const otherAdmin = await t.userWithRole("admin");
    expect((await verify(otherAdmin.token)).status).toBe(200);
    for (const role of ["supervisor", "operador", "anh_reader"] as const) {
      const user = await t.userWithRole(role);
      const res = await verify(user.token);
      expect(res.status, role).toBe(403);
    }
  });
});
