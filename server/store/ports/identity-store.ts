import type {
  NewRecoveryCodeRow,
  NewSessionRow,
  NewUserRow,
  RefreshTokenRow,
  SessionRow,
  UserRow,
} from "../rows.ts";

/**
 * What an authenticated request needs of its session's user: read on every request, so keep it
 * to point reads by primary key. The role is the stored text (the caller checks it is a known role).
 */
export type SessionUser = { email: string; role: string; isActive: boolean };

/** A refresh token with the session it belongs to and that session's user. */
export type RefreshTokenHolder = {
  token: Pick<RefreshTokenRow, "rotatedAt">;
  session: Pick<SessionRow, "id" | "revokedAt" | "expiresAt">;
  user: Pick<UserRow, "id" | "role" | "isActive">;
};

/** A session's state with its user's, for connections that re-check access while open. */
export type SessionState = Pick<SessionRow, "userId" | "revokedAt"> & Pick<UserRow, "role" | "isActive">;

/**
 * Users, their project assignments, sessions with their refresh tokens, and two-factor recovery
 * codes. Secrets arrive hashed or sealed (argon2id password hashes, SHA-256 hex of refresh tokens
 * and recovery codes, AES-GCM-sealed TOTP secrets) and are stored exactly as given: the port never
 * sees a secret in clear. Emails are compared exactly as given (callers lower-case them).
 *
 * Reads made inside a store transaction that then decide its writes must not race another
 * transaction doing the same (SQLite: one writer at a time; PostgreSQL: row locks as stated below):
 * - `user` and `refreshTokenHolder` lock the rows they read until the transaction ends
 *   (SELECT ... FOR UPDATE), so two logins cannot both consume one TOTP step and two rotations
 *   cannot both find one refresh token unrotated;
 * - `userCount` in a transaction holds off other transactions' user inserts until it ends, so two
 *   first-time setups cannot both find no user;
 * - `activeSuperadminsOtherThan` in a transaction holds off other transactions' changes to users'
 *   role or active flag until it ends, so two admins demoting the last two superadmins at once
 *   cannot both succeed;
 * - `userIdWithEmail` in a transaction holds off other transactions' email checks until it ends,
 *   so two creates or changes to one email cannot both find it free (a 409, never the unique
 *   index's error).
 * Callers lock through these reads only; a PostgreSQL adapter may take one lock for all of them
 * (an advisory transaction lock on identity writes, say) as long as the outcomes are these.
 */
export type IdentityStore = {
  // Users.
  /** The user (locked in a transaction, see above). */
  user(id: string): Promise<UserRow | undefined>;
  userByEmail(email: string): Promise<UserRow | undefined>;
  /** Every user, by email. */
  users(): Promise<UserRow[]>;
  /** How many users exist (see above, in a transaction). */
  userCount(): Promise<number>;
  /** The id of the user whose email is `email`, other than `except`; undefined when none (see above, in a transaction). */
  userIdWithEmail(email: string, except?: string): Promise<string | undefined>;
  /** How many users other than `exceptId` are active superadmins (in a transaction, see above). */
  activeSuperadminsOtherThan(exceptId: string): Promise<number>;
  /** Inserts the user (unset flags and counters take the schema defaults); the row as stored. */
  insertUser(row: NewUserRow): Promise<UserRow>;
  /** Sets the given columns; the updated row, undefined when there is no such user. */
  updateUser(id: string, set: Partial<Omit<NewUserRow, "id">>): Promise<UserRow | undefined>;

  // Project assignment (users whose role sees only assigned projects).
  /** The ids of the projects assigned to the user, in no particular order. */
  projectIdsOf(userId: string): Promise<string[]>;
  /** Each given user's assigned project ids, sorted by id; every given user has an entry (maybe empty). */
  assignedProjects(userIds: readonly string[]): Promise<Map<string, string[]>>;
  /** Replaces the user's assigned projects with `projectIds` (ids of existing projects), atomically. */
  replaceUserProjects(userId: string, projectIds: readonly string[]): Promise<void>;

  // Sessions and refresh tokens.
  /** Inserts the session and its first refresh token (by hash), atomically. */
  openSession(session: NewSessionRow, refreshTokenHash: string): Promise<void>;
  /**
   * The user behind a live session, for access-token resolution (every authenticated request):
   * undefined when the session does not exist, belongs to another user, is revoked, or its user is
   * gone. Expiry is the access token's, checked by the caller.
   */
  sessionUser(sessionId: string, userId: string): Promise<SessionUser | undefined>;
  /** The session's revocation state with its user's role and active flag; undefined when it does not exist. */
  sessionState(sessionId: string): Promise<SessionState | undefined>;
  /** The refresh token with this hash, its session and user (locked in a transaction); undefined when unknown. */
  refreshTokenHolder(tokenHash: string): Promise<RefreshTokenHolder | undefined>;
  /**
   * Rotates a refresh token: marks `tokenHash` rotated at `at` and adds `successorHash` to the
   * same session, created at `at`, atomically.
   */
  rotateRefreshToken(tokenHash: string, successorHash: string, sessionId: string, at: Date): Promise<void>;
  /** Revokes the session at `at` with `reason` unless it is revoked already (the first revocation stands). */
  revokeSession(sessionId: string, at: Date, reason: string): Promise<void>;
  /** Revokes every live session of the user at `at` with `reason`; revoked ones keep theirs. */
  revokeUserSessions(userId: string, at: Date, reason: string): Promise<void>;

  // Two-factor recovery codes (each stored as the SHA-256 hex of the normalised code).
  /** Replaces every recovery code of the user with `codes` (none: all removed), atomically. */
  replaceRecoveryCodes(userId: string, codes: readonly Omit<NewRecoveryCodeRow, "userId">[]): Promise<void>;
  /** Deletes the user's code with this hash; false when there was none (unknown or already used). */
  consumeRecoveryCode(userId: string, codeHash: string): Promise<boolean>;
};
