import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { NewUserRow } from "../rows.ts";
import { type DatabaseHandle, openDatabase } from "./client.ts";
import { sessions } from "./schema/index.ts";
import { SqliteStore } from "./sqlite-store.ts";

const at = new Date("2026-03-01T12:00:00Z");
const later = new Date("2026-03-01T12:05:00Z");

const user = (email: string, set: Partial<NewUserRow> = {}): NewUserRow => ({
  id: randomUUID(),
  email,
  name: email,
  role: "operador",
  passwordHash: "argon2id-hash",
  createdAt: at,
  updatedAt: at,
  ...set,
});

/** The port's stated semantics (server/store/ports/identity-store.ts), on a real database file. */
describe("SqliteIdentityStore", () => {
  let dir: string;
  let handle: DatabaseHandle;
  let store: SqliteStore;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "caudal-identity-"));
    handle = openDatabase(join(dir, "caudal.db"));
    store = new SqliteStore(handle);
  });
  afterEach(() => {
    handle.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const openSession = async (userId: string, tokenHash: string = randomUUID()) => {
    const id = randomUUID();
    await store.identity.openSession(
      { id, userId, createdAt: at, expiresAt: later, ip: null, userAgent: null },
      tokenHash,
    );
    return id;
  };
  const revocation = (id: string) =>
    handle.db
      .select({ at: sessions.revokedAt, reason: sessions.revokedReason })
      .from(sessions)
      .where(eq(sessions.id, id))
      .get();

  it("inserts users with the schema's defaults and lists them by email", async () => {
    const b = await store.identity.insertUser(user("b@x.test"));
    await store.identity.insertUser(user("a@x.test", { role: "superadmin" }));
    expect(b).toMatchObject({ isActive: true, twoFactorEnabled: false, totpFailedAttempts: 0 });
    expect((await store.identity.users()).map((u) => u.email)).toEqual(["a@x.test", "b@x.test"]);
    expect(await store.identity.userCount()).toBe(2);
    expect(await store.identity.userIdWithEmail("b@x.test")).toBe(b.id);
    expect(await store.identity.userIdWithEmail("b@x.test", b.id)).toBeUndefined();
    expect(await store.identity.updateUser(randomUUID(), { name: "nobody" })).toBeUndefined();
  });

  it("counts the other active superadmins", async () => {
    const a = await store.identity.insertUser(user("a@x.test", { role: "superadmin" }));
    const b = await store.identity.insertUser(user("b@x.test", { role: "superadmin" }));
    await store.identity.insertUser(user("c@x.test", { role: "superadmin", isActive: false }));
    expect(await store.identity.activeSuperadminsOtherThan(a.id)).toBe(1);
    await store.identity.updateUser(b.id, { role: "admin" });
    expect(await store.identity.activeSuperadminsOtherThan(a.id)).toBe(0);
  });

  it("replaces assignments and lists them per user, sorted by project id, empty lists included", async () => {
    const u = await store.identity.insertUser(user("a@x.test"));
    const other = await store.identity.insertUser(user("b@x.test"));
    const ids = ["p-2", "p-1", "p-3"];
    for (const id of ids) {
      await store.field.insertProject({ id, name: id, slug: id, createdAt: at, updatedAt: at });
    }
    await store.identity.replaceUserProjects(u.id, ["p-3", "p-1"]);
    await store.identity.replaceUserProjects(u.id, ["p-2", "p-1"]);
    const assigned = await store.identity.assignedProjects([u.id, other.id]);
    expect([...assigned]).toEqual([
      [u.id, ["p-1", "p-2"]],
      [other.id, []],
    ]);
    expect((await store.identity.projectIdsOf(u.id)).sort()).toEqual(["p-1", "p-2"]);
  });

  it("resolves a live session's user only for its own user, and not once revoked", async () => {
    const u = await store.identity.insertUser(user("a@x.test", { role: "supervisor" }));
    const other = await store.identity.insertUser(user("b@x.test"));
    const sid = await openSession(u.id);
    expect(await store.identity.sessionUser(sid, u.id)).toEqual({
      email: "a@x.test",
      role: "supervisor",
      isActive: true,
    });
    expect(await store.identity.sessionUser(sid, other.id)).toBeUndefined();
    expect(await store.identity.sessionUser(randomUUID(), u.id)).toBeUndefined();
    await store.identity.updateUser(u.id, { isActive: false });
    expect(await store.identity.sessionUser(sid, u.id)).toMatchObject({ isActive: false });
    expect(await store.identity.sessionState(sid)).toEqual({
      userId: u.id,
      revokedAt: null,
      role: "supervisor",
      isActive: false,
    });
    await store.identity.revokeSession(sid, later, "logout");
    expect(await store.identity.sessionUser(sid, u.id)).toBeUndefined();
    expect(await store.identity.sessionState(sid)).toMatchObject({ revokedAt: later });
  });

  it("keeps a session's first revocation; revoking a user's sessions leaves revoked ones as they are", async () => {
    const u = await store.identity.insertUser(user("a@x.test"));
    const first = await openSession(u.id);
    const second = await openSession(u.id);
    await store.identity.revokeSession(first, at, "logout");
    await store.identity.revokeSession(first, later, "refresh_token_reuse");
    await store.identity.revokeUserSessions(u.id, later, "password_reset");
    expect(revocation(first)).toEqual({ at, reason: "logout" });
    expect(revocation(second)).toEqual({ at: later, reason: "password_reset" });
  });

  it("rotates a refresh token: the old one marked, the successor on the same session", async () => {
    const u = await store.identity.insertUser(user("a@x.test", { role: "admin" }));
    const sid = await openSession(u.id, "hash-1");
    expect(await store.identity.refreshTokenHolder("hash-1")).toEqual({
      token: { rotatedAt: null },
      session: { id: sid, revokedAt: null, expiresAt: later },
      user: { id: u.id, role: "admin", isActive: true },
    });
    await store.identity.rotateRefreshToken("hash-1", "hash-2", sid, later);
    expect(await store.identity.refreshTokenHolder("hash-1")).toMatchObject({ token: { rotatedAt: later } });
    expect(await store.identity.refreshTokenHolder("hash-2")).toMatchObject({
      token: { rotatedAt: null },
      session: { id: sid },
    });
    expect(await store.identity.refreshTokenHolder("unknown")).toBeUndefined();
  });

  it("consumes a recovery code once, only the user's own; replacing with none removes them all", async () => {
    const u = await store.identity.insertUser(user("a@x.test"));
    const other = await store.identity.insertUser(user("b@x.test"));
    const codes = ["h1", "h2"].map((codeHash) => ({ id: randomUUID(), codeHash, createdAt: at }));
    await store.identity.replaceRecoveryCodes(u.id, codes);
    expect(await store.identity.consumeRecoveryCode(other.id, "h1")).toBe(false);
    expect(await store.identity.consumeRecoveryCode(u.id, "h1")).toBe(true);
    expect(await store.identity.consumeRecoveryCode(u.id, "h1")).toBe(false);
    await store.identity.replaceRecoveryCodes(u.id, []);
    expect(await store.identity.consumeRecoveryCode(u.id, "h2")).toBe(false);
  });

  it("keeps the per-request read out of an open transaction: it never sees a revocation rolled back", async () => {
    const u = await store.identity.insertUser(user("a@x.test"));
    const sid = await openSession(u.id);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const revoking = store.transaction(async (tx) => {
      await tx.identity.revokeSession(sid, later, "password_reset");
      await gate;
      throw new Error("rolled back");
    });
    // Another request's authentication, issued while the revocation is not committed.
    const read = store.identity.sessionUser(sid, u.id);
    release();
    await expect(revoking).rejects.toThrow("rolled back");
    expect(await read).toEqual({ email: "a@x.test", role: "operador", isActive: true });
  });
});
