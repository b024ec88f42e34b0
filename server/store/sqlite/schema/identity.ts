import { blob, index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { createdAt, flag, id, instant } from "./columns.ts";
import { projects } from "./field.ts";

export const users = sqliteTable("users", {
  id: id(),
  /** Stored lower-cased; unique. */
  email: text("email").notNull().unique(),
  name: text("name").notNull(),
  role: text("role", { enum: ["superadmin", "admin", "supervisor", "operador", "anh_reader"] }).notNull(),
  passwordHash: text("password_hash").notNull(),
  isActive: flag("is_active").notNull().default(true),
  twoFactorEnabled: flag("two_factor_enabled").notNull().default(false),
  /** AES-256-GCM: iv (12) ‖ tag (16) ‖ ciphertext. Never plaintext. */
  twoFactorSecretEncrypted: blob("two_factor_secret_encrypted", { mode: "buffer" }),
  /** Secret issued by /2fa/setup, awaiting /2fa/enable. Same encryption. */
  twoFactorPendingSecretEncrypted: blob("two_factor_pending_secret_encrypted", { mode: "buffer" }),
  lastTotpStepUsed: integer("last_totp_step_used"),
  totpFailedAttempts: integer("totp_failed_attempts").notNull().default(0),
  totpFirstFailureAt: instant("totp_first_failure_at"),
  totpLockedUntil: instant("totp_locked_until"),
  createdAt: createdAt(),
  updatedAt: instant("updated_at").notNull(),
});

export const userProjects = sqliteTable(
  "user_projects",
  {
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    projectId: text("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
  },
  (t) => [
    primaryKey({ columns: [t.userId, t.projectId] }),
    index("user_projects_project_idx").on(t.projectId),
  ],
);

export const recoveryCodes = sqliteTable(
  "recovery_codes",
  {
    id: id(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** SHA-256 hex of the normalised code. */
    codeHash: text("code_hash").notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("recovery_codes_user_idx").on(t.userId)],
);

export const sessions = sqliteTable(
  "sessions",
  {
    id: id(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    createdAt: createdAt(),
    expiresAt: instant("expires_at").notNull(),
    revokedAt: instant("revoked_at"),
    revokedReason: text("revoked_reason"),
    ip: text("ip"),
    userAgent: text("user_agent"),
  },
  (t) => [index("sessions_user_idx").on(t.userId)],
);

/** Every refresh token ever issued for a session; a rotated one presented again revokes the session. */
export const refreshTokens = sqliteTable(
  "refresh_tokens",
  {
    /** SHA-256 hex of the opaque token. */
    tokenHash: text("token_hash").primaryKey(),
    sessionId: text("session_id")
      .notNull()
      .references(() => sessions.id, { onDelete: "cascade" }),
    createdAt: createdAt(),
    rotatedAt: instant("rotated_at"),
  },
  (t) => [index("refresh_tokens_session_idx").on(t.sessionId)],
);
