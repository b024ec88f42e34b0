import { and, asc, count, eq, inArray, isNull, ne, sql } from "drizzle-orm";
import type { IdentityStore, SessionUser } from "../ports/identity-store.ts";
import type { NewRecoveryCodeRow, NewSessionRow, NewUserRow } from "../rows.ts";
import { recoveryCodes, refreshTokens, sessions, userProjects, users } from "./schema/index.ts";
import { atomically, type PgExecutor, type PgSession } from "./session.ts";

/**
 * The identity roster lock: a transaction-scoped advisory lock (pg_advisory_xact_lock, released at
 * COMMIT or ROLLBACK) taken by the reads that decide a transaction's writes (userCount,
 * activeSuperadminsOtherThan, userIdWithEmail) and by every write that could change the counts (a
 * user inserted, a role or active flag set). A row lock cannot do it: a count must not change, and
 * rows that do not exist yet cannot be locked (two users given one email would both find it free,
 * and the second hit the unique index). Taken exclusively: these writes are rare admin actions,
 * and one lock for all of them cannot deadlock against itself.
 */
const lockRoster = (executor: PgExecutor) =>
  executor.execute(sql`SELECT pg_advisory_xact_lock(hashtext('caudal_identity_roster'))`);

/** Whether an update changes what the roster lock guards (a role or an active flag). */
const touchesRoster = (set: Partial<NewUserRow>) => set.role !== undefined || set.isActive !== undefined;

/** The one row an INSERT … RETURNING gives back. */
function inserted<T>(rows: T[], what: string): T {
  const [row] = rows;
  if (!row) throw new Error(`INSERT … RETURNING returned no ${what} row`);
  return row;
}

export class PostgresIdentityStore implements IdentityStore {
  readonly #s: PgSession;

  constructor(session: PgSession) {
    this.#s = session;
  }

  async user(id: string) {
    const query = this.#s.executor().select().from(users).where(eq(users.id, id));
    // In a transaction the row stays locked until it ends (SELECT … FOR NO KEY UPDATE: it conflicts
    // with another transaction's lock or update of the row, not with inserts of sessions naming it),
    // so two logins cannot both consume one TOTP step. Outside one a lock would be dropped at once.
    const [row] = await (this.#s.inTransaction() ? query.for("no key update") : query);
    return row;
  }

  async userByEmail(email: string) {
    const [row] = await this.#s.executor().select().from(users).where(eq(users.email, email)).limit(1);
    return row;
  }

  async users() {
    return this.#s.executor().select().from(users).orderBy(asc(users.email));
  }

  async userCount() {
    const executor = this.#s.executor();
    if (this.#s.inTransaction()) await lockRoster(executor);
    const [row] = await executor.select({ n: count() }).from(users);
    return row?.n ?? 0;
  }

  async userIdWithEmail(email: string, except?: string) {
    const byEmail = eq(users.email, email);
    const executor = this.#s.executor();
    if (this.#s.inTransaction()) await lockRoster(executor);
    const [row] = await executor
      .select({ id: users.id })
      .from(users)
      .where(except === undefined ? byEmail : and(byEmail, ne(users.id, except)))
      .limit(1);
    return row?.id;
  }

  async activeSuperadminsOtherThan(exceptId: string) {
    const executor = this.#s.executor();
    if (this.#s.inTransaction()) await lockRoster(executor);
    const [row] = await executor
      .select({ n: count() })
      .from(users)
      .where(and(eq(users.role, "superadmin"), eq(users.isActive, true), ne(users.id, exceptId)));
    return row?.n ?? 0;
  }

  insertUser(row: NewUserRow) {
    return atomically(this.#s, async (tx) => {
      await lockRoster(tx);
      return inserted(await tx.insert(users).values(row).returning(), "user");
    });
  }

  async updateUser(id: string, set: Partial<Omit<NewUserRow, "id">>) {
    const update = async (tx: PgExecutor) => {
      const [row] = await tx.update(users).set(set).where(eq(users.id, id)).returning();
      return row;
    };
    if (!touchesRoster(set)) return update(this.#s.executor());
    return atomically(this.#s, async (tx) => {
      await lockRoster(tx);
      return update(tx);
    });
  }

  async projectIdsOf(userId: string) {
    // Read on every request of a role that sees only assigned projects: prepared once per connection.
    const rows = await this.#s
      .executor()
      .select({ projectId: userProjects.projectId })
      .from(userProjects)
      .where(eq(userProjects.userId, sql.placeholder("userId")))
      .prepare("identity_project_ids_of")
      .execute({ userId });
    return rows.map((r) => r.projectId);
  }

  async assignedProjects(userIds: readonly string[]) {
    const out = new Map<string, string[]>(userIds.map((id) => [id, []]));
    if (userIds.length === 0) return out;
    const rows = await this.#s
      .executor()
      .select({ userId: userProjects.userId, projectId: userProjects.projectId })
      .from(userProjects)
      .where(inArray(userProjects.userId, [...userIds]))
      .orderBy(asc(userProjects.projectId));
    for (const r of rows) out.get(r.userId)?.push(r.projectId);
    return out;
  }

  replaceUserProjects(userId: string, projectIds: readonly string[]) {
    return atomically(this.#s, async (tx) => {
      await tx.delete(userProjects).where(eq(userProjects.userId, userId));
      if (projectIds.length > 0) {
        await tx.insert(userProjects).values(projectIds.map((projectId) => ({ userId, projectId })));
      }
    });
  }

  openSession(session: NewSessionRow, refreshTokenHash: string) {
    return atomically(this.#s, async (tx) => {
      await tx.insert(sessions).values(session);
      await tx
        .insert(refreshTokens)
        .values({ tokenHash: refreshTokenHash, sessionId: session.id, createdAt: session.createdAt });
    });
  }

  async sessionUser(sessionId: string, userId: string): Promise<SessionUser | undefined> {
    // Every authenticated request: one round trip (a join; on SQLite two point reads were faster,
    // here each statement is a round trip), prepared once per connection.
    const [row] = await this.#s
      .executor()
      .select({
        email: users.email,
        role: users.role,
        isActive: users.isActive,
        revokedAt: sessions.revokedAt,
      })
      .from(sessions)
      .innerJoin(users, eq(users.id, sessions.userId))
      .where(
        and(eq(sessions.id, sql.placeholder("sessionId")), eq(sessions.userId, sql.placeholder("userId"))),
      )
      .prepare("identity_session_user")
      .execute({ sessionId, userId });
    if (!row || row.revokedAt !== null) return undefined;
    return { email: row.email, role: row.role, isActive: row.isActive };
  }

  async sessionState(sessionId: string) {
    const [row] = await this.#s
      .executor()
      .select({
        userId: sessions.userId,
        revokedAt: sessions.revokedAt,
        role: users.role,
        isActive: users.isActive,
      })
      .from(sessions)
      .innerJoin(users, eq(users.id, sessions.userId))
      .where(eq(sessions.id, sessionId))
      .limit(1);
    return row;
  }

  async refreshTokenHolder(tokenHash: string) {
    const query = this.#s
      .executor()
      .select({
        token: { rotatedAt: refreshTokens.rotatedAt },
        session: { id: sessions.id, revokedAt: sessions.revokedAt, expiresAt: sessions.expiresAt },
        user: { id: users.id, role: users.role, isActive: users.isActive },
      })
      .from(refreshTokens)
      .innerJoin(sessions, eq(sessions.id, refreshTokens.sessionId))
      .innerJoin(users, eq(users.id, sessions.userId))
      .where(eq(refreshTokens.tokenHash, tokenHash));
    // In a transaction the token, its session and user stay locked until it ends (FOR NO KEY UPDATE
    // of all three), so two rotations cannot both find the token unrotated.
    const [row] = await (this.#s.inTransaction() ? query.for("no key update") : query);
    return row;
  }

  rotateRefreshToken(tokenHash: string, successorHash: string, sessionId: string, at: Date) {
    return atomically(this.#s, async (tx) => {
      await tx.update(refreshTokens).set({ rotatedAt: at }).where(eq(refreshTokens.tokenHash, tokenHash));
      await tx.insert(refreshTokens).values({ tokenHash: successorHash, sessionId, createdAt: at });
    });
  }

  async revokeSession(sessionId: string, at: Date, reason: string) {
    await this.#s
      .executor()
      .update(sessions)
      .set({ revokedAt: at, revokedReason: reason })
      .where(and(eq(sessions.id, sessionId), isNull(sessions.revokedAt)));
  }

  async revokeUserSessions(userId: string, at: Date, reason: string) {
    await this.#s
      .executor()
      .update(sessions)
      .set({ revokedAt: at, revokedReason: reason })
      .where(and(eq(sessions.userId, userId), isNull(sessions.revokedAt)));
  }

  replaceRecoveryCodes(userId: string, codes: readonly Omit<NewRecoveryCodeRow, "userId">[]) {
    return atomically(this.#s, async (tx) => {
      await tx.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId));
      if (codes.length > 0) {
        await tx.insert(recoveryCodes).values(codes.map((code) => ({ ...code, userId })));
      }
    });
  }

  async consumeRecoveryCode(userId: string, codeHash: string) {
    const deleted = await this.#s
      .executor()
      .delete(recoveryCodes)
      .where(and(eq(recoveryCodes.userId, userId), eq(recoveryCodes.codeHash, codeHash)))
      .returning({ id: recoveryCodes.id });
    return deleted.length > 0;
  }
}
