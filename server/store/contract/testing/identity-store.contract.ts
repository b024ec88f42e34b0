import { randomUUID } from "node:crypto";
import { afterEach, beforeEach, expect, it } from "vitest";
import type { ContractBackend, StoreUnderTest } from "./backend.ts";
import { at, byBytes, newProject, newUser } from "./fixtures.ts";

/** How many transactions each race runs at once. */
const RACERS = 6;

/**
 * IdentityStore (server/store/ports/identity-store.ts) on every backend, including the races its
 * locking reads close: each race runs RACERS transactions at once, and exactly one may win.
 */
export function identityStoreContract(backend: ContractBackend): void {
  let t: StoreUnderTest;
  beforeEach(async () => {
    t = await backend.open();
  });
  afterEach(async () => {
    await t.close();
  });

  const openSession = async (userId: string, tokenHash: string = randomUUID()) => {
    const id = randomUUID();
    await t.store.identity.openSession(
      { id, userId, createdAt: at(), expiresAt: at(60_000), ip: "10.0.0.1", userAgent: null },
      tokenHash,
    );
    return id;
  };

  /**
   * Runs `work` in RACERS transactions at once; how many returned true. A pool first opens a
   * connection for each (concurrent probes), so that the transactions overlap rather than start
   * one connect apart.
   */
  const race = async (work: (i: number) => Promise<boolean>) => {
    const racers = Array.from({ length: RACERS }, (_, i) => i);
    await Promise.all(racers.map(() => t.store.probe()));
    return (await Promise.all(racers.map(work))).filter(Boolean).length;
  };

  it("inserts a user with the schema's defaults and reads it back as stored; a taken email is refused", async () => {
    const row = newUser({ email: "b@x.test" });
    const stored = await t.store.identity.insertUser(row);
    expect(stored).toStrictEqual({
      ...row,
      isActive: true,
      twoFactorEnabled: false,
      twoFactorSecretEncrypted: null,
      twoFactorPendingSecretEncrypted: null,
      lastTotpStepUsed: null,
      totpFailedAttempts: 0,
      totpFirstFailureAt: null,
      totpLockedUntil: null,
    });
    expect(await t.store.identity.user(row.id)).toStrictEqual(stored);
    expect(await t.store.identity.userByEmail("b@x.test")).toStrictEqual(stored);
    expect(await t.store.identity.userByEmail("B@x.test")).toBeUndefined();
    expect(await t.store.identity.user(randomUUID())).toBeUndefined();
    await expect(t.store.identity.insertUser(newUser({ email: "b@x.test" }))).rejects.toThrow();
    expect(await t.store.identity.userCount()).toBe(1);
  });

  it("lists users by email in byte order; finds an email's user other than the one excepted", async () => {
    const emails = ["b@x.test", "B@x.test", "a@x.test", "é@x.test", "z@x.test"];
    const ids = new Map<string, string>();
    for (const email of emails) ids.set(email, (await t.store.identity.insertUser(newUser({ email }))).id);
    expect((await t.store.identity.users()).map((u) => u.email)).toEqual([...emails].sort(byBytes));
    expect(await t.store.identity.userCount()).toBe(5);
    const b = ids.get("b@x.test");
    expect(await t.store.identity.userIdWithEmail("b@x.test")).toBe(b);
    expect(await t.store.identity.userIdWithEmail("b@x.test", b)).toBeUndefined();
    expect(await t.store.identity.userIdWithEmail("b@x.test", ids.get("a@x.test"))).toBe(b);
    expect(await t.store.identity.userIdWithEmail("nobody@x.test")).toBeUndefined();
  });

  it("updates the given columns and returns the row; undefined for a missing user", async () => {
    const u = await t.store.identity.insertUser(newUser());
    const secret = Buffer.from([0, 1, 2, 255]);
    const updated = await t.store.identity.updateUser(u.id, {
      twoFactorEnabled: true,
      twoFactorSecretEncrypted: secret,
      lastTotpStepUsed: 2 ** 40,
      totpLockedUntil: at(5),
      updatedAt: at(9),
    });
    expect(updated).toStrictEqual({
      ...u,
      twoFactorEnabled: true,
      twoFactorSecretEncrypted: secret,
      lastTotpStepUsed: 2 ** 40,
      totpLockedUntil: at(5),
      updatedAt: at(9),
    });
    expect(await t.store.identity.user(u.id)).toStrictEqual(updated);
    expect(await t.store.identity.updateUser(randomUUID(), { name: "nobody" })).toBeUndefined();
  });

  it("counts the other active superadmins", async () => {
    const a = await t.store.identity.insertUser(newUser({ role: "superadmin" }));
    const b = await t.store.identity.insertUser(newUser({ role: "superadmin" }));
    await t.store.identity.insertUser(newUser({ role: "superadmin", isActive: false }));
    await t.store.identity.insertUser(newUser({ role: "admin" }));
    expect(await t.store.identity.activeSuperadminsOtherThan(a.id)).toBe(1);
    expect(await t.store.identity.activeSuperadminsOtherThan(randomUUID())).toBe(2);
    await t.store.identity.updateUser(b.id, { role: "admin" });
    expect(await t.store.identity.activeSuperadminsOtherThan(a.id)).toBe(0);
  });

  it("replaces assignments and lists them per user, sorted by project id, empty lists included", async () => {
    const u = await t.store.identity.insertUser(newUser());
    const other = await t.store.identity.insertUser(newUser());
    for (const id of ["p-2", "p-1", "p-3"]) await t.store.field.insertProject(newProject(id, { id }));
    await t.store.identity.replaceUserProjects(u.id, ["p-3", "p-1"]);
    await t.store.identity.replaceUserProjects(u.id, ["p-2", "p-1"]);
    expect([...(await t.store.identity.assignedProjects([u.id, other.id]))]).toEqual([
      [u.id, ["p-1", "p-2"]],
      [other.id, []],
    ]);
    expect((await t.store.identity.projectIdsOf(u.id)).sort()).toEqual(["p-1", "p-2"]);
    expect(await t.store.identity.assignedProjects([])).toEqual(new Map());
    // All or nothing: an unknown project refuses the whole replacement.
    await expect(t.store.identity.replaceUserProjects(u.id, ["p-3", "no-such-project"])).rejects.toThrow();
    expect((await t.store.identity.projectIdsOf(u.id)).sort()).toEqual(["p-1", "p-2"]);
    await t.store.identity.replaceUserProjects(u.id, []);
    expect(await t.store.identity.projectIdsOf(u.id)).toEqual([]);
  });

  it("resolves a live session's user only for its own user, and not once revoked", async () => {
    const u = await t.store.identity.insertUser(newUser({ email: "a@x.test", role: "supervisor" }));
    const other = await t.store.identity.insertUser(newUser());
    const sid = await openSession(u.id);
    expect(await t.store.identity.sessionUser(sid, u.id)).toStrictEqual({
      email: "a@x.test",
      role: "supervisor",
      isActive: true,
    });
    expect(await t.store.identity.sessionUser(sid, other.id)).toBeUndefined();
    expect(await t.store.identity.sessionUser(randomUUID(), u.id)).toBeUndefined();
    await t.store.identity.updateUser(u.id, { isActive: false });
    expect(await t.store.identity.sessionUser(sid, u.id)).toMatchObject({ isActive: false });
    expect(await t.store.identity.sessionState(sid)).toStrictEqual({
      userId: u.id,
      revokedAt: null,
      role: "supervisor",
      isActive: false,
    });
    expect(await t.store.identity.sessionState(randomUUID())).toBeUndefined();
    await t.store.identity.revokeSession(sid, at(7), "logout");
    expect(await t.store.identity.sessionUser(sid, u.id)).toBeUndefined();
    expect(await t.store.identity.sessionState(sid)).toMatchObject({ revokedAt: at(7) });
  });

  it("keeps a session's first revocation; revoking a user's sessions leaves revoked ones and other users' alone", async () => {
    const u = await t.store.identity.insertUser(newUser());
    const other = await t.store.identity.insertUser(newUser());
    const first = await openSession(u.id);
    const second = await openSession(u.id);
    const others = await openSession(other.id);
    await t.store.identity.revokeSession(first, at(1), "logout");
    await t.store.identity.revokeSession(first, at(2), "refresh_token_reuse");
    await t.store.identity.revokeUserSessions(u.id, at(3), "password_reset");
    expect(await t.store.identity.sessionState(first)).toMatchObject({ revokedAt: at(1) });
    expect(await t.store.identity.sessionState(second)).toMatchObject({ revokedAt: at(3) });
    expect(await t.store.identity.sessionState(others)).toMatchObject({ revokedAt: null });
  });

  it("opens a session with its first refresh token, all or nothing; rotates it onto a successor", async () => {
    const u = await t.store.identity.insertUser(newUser({ role: "admin" }));
    const sid = await openSession(u.id, "hash-1");
    expect(await t.store.identity.refreshTokenHolder("hash-1")).toStrictEqual({
      token: { rotatedAt: null },
      session: { id: sid, revokedAt: null, expiresAt: at(60_000) },
      user: { id: u.id, role: "admin", isActive: true },
    });
    // A token hash already issued refuses the new session with it.
    await expect(openSession(u.id, "hash-1")).rejects.toThrow();
    await t.store.identity.rotateRefreshToken("hash-1", "hash-2", sid, at(5));
    expect(await t.store.identity.refreshTokenHolder("hash-1")).toMatchObject({
      token: { rotatedAt: at(5) },
    });
    expect(await t.store.identity.refreshTokenHolder("hash-2")).toMatchObject({
      token: { rotatedAt: null },
      session: { id: sid },
    });
    // A successor already issued refuses the rotation, which then marks nothing.
    await expect(t.store.identity.rotateRefreshToken("hash-2", "hash-1", sid, at(6))).rejects.toThrow();
    expect(await t.store.identity.refreshTokenHolder("hash-2")).toMatchObject({ token: { rotatedAt: null } });
    expect(await t.store.identity.refreshTokenHolder("unknown")).toBeUndefined();
  });

  it("consumes a recovery code once, only the user's own; replacing with none removes them all", async () => {
    const u = await t.store.identity.insertUser(newUser());
    const other = await t.store.identity.insertUser(newUser());
    const codes = ["h1", "h2", "h3"].map((codeHash) => ({ id: randomUUID(), codeHash, createdAt: at() }));
    await t.store.identity.replaceRecoveryCodes(u.id, codes);
    expect(await t.store.identity.consumeRecoveryCode(other.id, "h1")).toBe(false);
    expect(await t.store.identity.consumeRecoveryCode(u.id, "h1")).toBe(true);
    expect(await t.store.identity.consumeRecoveryCode(u.id, "h1")).toBe(false);
    await t.store.identity.replaceRecoveryCodes(u.id, [
      { id: randomUUID(), codeHash: "h4", createdAt: at() },
    ]);
    expect(await t.store.identity.consumeRecoveryCode(u.id, "h2")).toBe(false);
    expect(await t.store.identity.consumeRecoveryCode(u.id, "h4")).toBe(true);
    await t.store.identity.replaceRecoveryCodes(u.id, codes);
    await t.store.identity.replaceRecoveryCodes(u.id, []);
    expect(await t.store.identity.consumeRecoveryCode(u.id, "h3")).toBe(false);
  });

  it("keeps the per-request read out of an open transaction: it never sees a revocation rolled back", async () => {
    const u = await t.store.identity.insertUser(newUser({ email: "a@x.test" }));
    const sid = await openSession(u.id);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const revoking = t.store.transaction(async (tx) => {
      await tx.identity.revokeSession(sid, at(1), "password_reset");
      await gate;
      throw new Error("rolled back");
    });
    // Another request's authentication, issued while the revocation is not committed.
    const read = t.store.identity.sessionUser(sid, u.id);
    release();
    await expect(revoking).rejects.toThrow("rolled back");
    expect(await read).toStrictEqual({ email: "a@x.test", role: "operador", isActive: true });
  });

  it("lets one of several concurrent logins consume a TOTP step (user locks the row it read)", async () => {
    const u = await t.store.identity.insertUser(newUser());
    const consumed = await race(() =>
      t.store.transaction(async (tx) => {
        const row = await tx.identity.user(u.id);
        if (!row || (row.lastTotpStepUsed ?? -1) >= 7) return false;
        await tx.identity.updateUser(u.id, { lastTotpStepUsed: 7 });
        return true;
      }),
    );
    expect(consumed).toBe(1);
  });

  it("lets one of several concurrent rotations have a refresh token (its holder locks what it read)", async () => {
    const u = await t.store.identity.insertUser(newUser());
    const sid = await openSession(u.id, "hash-0");
    const rotated = await race((i) =>
      t.store.transaction(async (tx) => {
        const holder = await tx.identity.refreshTokenHolder("hash-0");
        if (!holder || holder.token.rotatedAt !== null) return false;
        await tx.identity.rotateRefreshToken("hash-0", `hash-${i + 1}`, sid, at(i));
        return true;
      }),
    );
    expect(rotated).toBe(1);
  });

  it("lets one of several concurrent first-time setups find no user (the count holds off inserts)", async () => {
    const created = await race(() =>
      t.store.transaction(async (tx) => {
        if ((await tx.identity.userCount()) > 0) return false;
        await tx.identity.insertUser(newUser({ role: "superadmin" }));
        return true;
      }),
    );
    expect(created).toBe(1);
    expect(await t.store.identity.userCount()).toBe(1);
  });

  it("never demotes the last active superadmin, however many demotions run at once", async () => {
    const admins: { id: string }[] = [];
    for (let i = 0; i < RACERS; i++)
      admins.push(await t.store.identity.insertUser(newUser({ role: "superadmin" })));
    const demoted = await race((i) =>
      t.store.transaction(async (tx) => {
        const id = admins[i]?.id ?? "";
        const before = await tx.identity.user(id);
        if (!before || (await tx.identity.activeSuperadminsOtherThan(id)) === 0) return false;
        await tx.identity.updateUser(id, i % 2 === 0 ? { role: "admin" } : { isActive: false });
        return true;
      }),
    );
    expect(demoted).toBe(RACERS - 1);
    expect(await t.store.identity.activeSuperadminsOtherThan(randomUUID())).toBe(1);
  });
}
