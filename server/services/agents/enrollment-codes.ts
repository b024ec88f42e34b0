import { randomUUID } from "node:crypto";
import { and, desc, eq, isNull } from "drizzle-orm";
import { AppError, badRequest, notFound } from "../../errors.ts";
import { appendAudit, type DbOrTx } from "../../store/sqlite/append-audit.ts";
import { enrollmentCodes, type enrollmentPurposes, projects } from "../../store/sqlite/schema/index.ts";
import { type AuthContext, assertProjectVisible } from "../auth/auth-context.ts";
import { randomToken, sha256Hex } from "../auth/tokens.ts";
import type { ServiceContext } from "../context.ts";
import { agentMqttUsername, replaceAgentToken } from "./agent-token.ts";

export type EnrollmentPurpose = (typeof enrollmentPurposes)[number];
export type EnrollmentCodeStatus = "active" | "used" | "expired" | "revoked";

export const ENROLLMENT_CODE_TTL_SECONDS = 7 * 24 * 3600;
export const ENROLLMENT_CODE_MAX_TTL_SECONDS = 30 * 24 * 3600;
/** Every enrollment code starts with this, so one found in a config or a log is recognisable. */
export const ENROLLMENT_CODE_PREFIX = "cen_";

export type IssuedEnrollmentCode = { id: string; code: string; expires_at: string };

export type EnrollmentCodeDto = {
  id: string;
  purpose: EnrollmentPurpose;
  created_at: string;
  expires_at: string;
  used_at: string | null;
  revoked_at: string | null;
  status: EnrollmentCodeStatus;
};

export type Enrollment = { project_id: string; agent_token: string; mqtt_username: string };

type CodeRow = typeof enrollmentCodes.$inferSelect;

/** Revoked wins over used, used over expired: each answers "why does this code not work now". */
function statusOf(row: CodeRow, now: Date): EnrollmentCodeStatus {
  if (row.revokedAt) return "revoked";
  if (row.usedAt) return "used";
  if (row.expiresAt.getTime() <= now.getTime()) return "expired";
  return "active";
}

function toDto(row: CodeRow, now: Date): EnrollmentCodeDto {
  return {
    id: row.id,
    purpose: row.purpose,
    created_at: row.createdAt.toISOString(),
    expires_at: row.expiresAt.toISOString(),
    used_at: row.usedAt?.toISOString() ?? null,
    revoked_at: row.revokedAt?.toISOString() ?? null,
    status: statusOf(row, now),
  };
}

function assertProjectExists(tx: DbOrTx, projectId: string): void {
  if (!tx.select({ id: projects.id }).from(projects).where(eq(projects.id, projectId)).get())
    throw notFound("project");
}

/**
 * Issues a one-time enrollment code for the project, shown once; only its SHA-256 is stored.
 * `by` null: the system issued it (an install script download, an MSI build); it is still audited.
 */
export function issueEnrollmentCode(
  ctx: ServiceContext,
  by: AuthContext | null,
  projectId: string,
  opts: { purpose?: EnrollmentPurpose; ttlSeconds?: number } = {},
): IssuedEnrollmentCode {
  if (by) assertProjectVisible(by, projectId);
  const ttl = opts.ttlSeconds ?? ENROLLMENT_CODE_TTL_SECONDS;
  if (!Number.isInteger(ttl) || ttl < 1 || ttl > ENROLLMENT_CODE_MAX_TTL_SECONDS)
    throw badRequest(`ttl_seconds must be an integer from 1 to ${ENROLLMENT_CODE_MAX_TTL_SECONDS}`);
  const purpose = opts.purpose ?? "manual";
  const now = ctx.clock.now();
  const expiresAt = new Date(now.getTime() + ttl * 1000);
  const id = randomUUID();
  const code = `${ENROLLMENT_CODE_PREFIX}${randomToken(32)}`;
  ctx.db.transaction((tx) => {
    assertProjectExists(tx, projectId);
    tx.insert(enrollmentCodes)
      .values({
        id,
        projectId,
        codeHash: sha256Hex(code),
        purpose,
        createdBy: by?.userId ?? null,
        createdAt: now,
        expiresAt,
      })
      .run();
    appendAudit(tx, {
      at: now,
      userId: by?.userId ?? null,
      projectId,
      entity: "enrollment_code",
      entityId: id,
      action: "create",
      // The code itself is never recorded, not even hashed.
      before: null,
      after: { purpose, expires_at: expiresAt.toISOString() },
    });
  });
  return { id, code, expires_at: expiresAt.toISOString() };
}

/** The project's enrollment codes, newest first, without the codes. */
export function listEnrollmentCodes(
  ctx: ServiceContext,
  auth: AuthContext,
  projectId: string,
): EnrollmentCodeDto[] {
  assertProjectVisible(auth, projectId);
  assertProjectExists(ctx.db, projectId);
  const now = ctx.clock.now();
  return ctx.db
    .select()
    .from(enrollmentCodes)
    .where(eq(enrollmentCodes.projectId, projectId))
    .orderBy(desc(enrollmentCodes.createdAt), desc(enrollmentCodes.id))
    .all()
    .map((row) => toDto(row, now));
}

/**
 * Revokes a code: it no longer enrolls an agent nor downloads a binary, so an installer made with it
 * stops working. Revoking a revoked code changes nothing and is not audited again.
 */
export function revokeEnrollmentCode(
  ctx: ServiceContext,
  auth: AuthContext,
  projectId: string,
  codeId: string,
): EnrollmentCodeDto {
  assertProjectVisible(auth, projectId);
  const now = ctx.clock.now();
  return ctx.db.transaction((tx) => {
    assertProjectExists(tx, projectId);
    const row = tx
      .select()
      .from(enrollmentCodes)
      .where(and(eq(enrollmentCodes.id, codeId), eq(enrollmentCodes.projectId, projectId)))
      .get();
    if (!row) throw notFound("enrollment code");
    if (row.revokedAt) return toDto(row, now);
    tx.update(enrollmentCodes).set({ revokedAt: now }).where(eq(enrollmentCodes.id, codeId)).run();
    appendAudit(tx, {
      at: now,
      userId: auth.userId,
      projectId,
      entity: "enrollment_code",
      entityId: codeId,
      action: "update",
      before: { status: statusOf(row, now) },
      after: { status: "revoked", revoked_at: now.toISOString() },
    });
    return toDto({ ...row, revokedAt: now }, now);
  });
}

/**
 * What a code is worth now, for callers that accept one: the binary download takes an active or a
 * used code (the binary holds no secret, and re-running an installer downloads it again); a cached
 * MSI is served only while its code is active. Null for a code that was never issued.
 */
export function enrollmentCodeState(
  ctx: ServiceContext,
  code: string,
): { id: string; projectId: string; status: EnrollmentCodeStatus } | null {
  const row = ctx.db
    .select()
    .from(enrollmentCodes)
    .where(eq(enrollmentCodes.codeHash, sha256Hex(code)))
    .get();
  return row ? { id: row.id, projectId: row.projectId, status: statusOf(row, ctx.clock.now()) } : null;
}

function refusal(status: Exclude<EnrollmentCodeStatus, "active">, row: CodeRow): AppError {
  const ask = "ask a supervisor for a new enrollment code or installer";
  switch (status) {
    case "used":
      return new AppError(
        "EnrollmentCodeUsed",
        `this enrollment code was already used at ${row.usedAt?.toISOString()}: a code enrolls one agent once; ${ask}`,
      );
    case "expired":
      return new AppError(
        "EnrollmentCodeExpired",
        `this enrollment code expired at ${row.expiresAt.toISOString()}; ${ask}`,
      );
    case "revoked":
      return new AppError("EnrollmentCodeRevoked", `this enrollment code was revoked; ${ask}`);
  }
}

/**
 * Trades an active code for a new agent token of its project, once: the code is claimed and the
 * token replaced in one immediate (write-locked) transaction, so of two concurrent calls with one
 * code exactly one succeeds. Like issueAgentToken, the new token revokes the project's previous one.
 */
export function enrollAgent(
  ctx: ServiceContext,
  code: string,
  meta: { address?: string; hostname?: string; projectId?: string },
): Enrollment {
  const now = ctx.clock.now();
  const hash = sha256Hex(code);
  const enrolled = ctx.db.transaction(
    (tx) => {
      const row = tx.select().from(enrollmentCodes).where(eq(enrollmentCodes.codeHash, hash)).get();
      if (!row) throw new AppError("InvalidEnrollmentCode", "the enrollment code is not valid");
      // An agent configured for another project must not take (and rotate) this project's token.
      if (meta.projectId !== undefined && meta.projectId !== row.projectId)
        throw new AppError(
          "InvalidEnrollmentCode",
          "this enrollment code belongs to another project than project_id",
        );
      const status = statusOf(row, now);
      if (status !== "active") throw refusal(status, row);
      const claimed = tx
        .update(enrollmentCodes)
        .set({ usedAt: now })
        .where(
          and(
            eq(enrollmentCodes.id, row.id),
            isNull(enrollmentCodes.usedAt),
            isNull(enrollmentCodes.revokedAt),
          ),
        )
        .run();
      if (claimed.changes !== 1) throw refusal("used", { ...row, usedAt: now });
      const token = replaceAgentToken(tx, row.projectId, null, now);
      appendAudit(tx, {
        at: now,
        userId: null,
        projectId: row.projectId,
        entity: "enrollment_code",
        entityId: row.id,
        action: "update",
        before: { status: "active" },
        after: {
          status: "used",
          used_at: now.toISOString(),
          hostname: meta.hostname ?? null,
          address: meta.address ?? null,
        },
      });
      return { projectId: row.projectId, token };
    },
    { behavior: "immediate" },
  );
  ctx.events.emit("agentTokenRotated", { projectId: enrolled.projectId });
  return {
    project_id: enrolled.projectId,
    agent_token: enrolled.token,
    mqtt_username: agentMqttUsername(enrolled.projectId),
  };
}

/**
 * What an issued code is worth now, by its id: an MSI build keeps its code's id, never the code.
 * Null when no such code exists (or its project was deleted).
 */
export function enrollmentCodeStatusById(
  ctx: ServiceContext,
  codeId: string,
): { status: EnrollmentCodeStatus; expiresAt: Date } | null {
  const row = ctx.db.select().from(enrollmentCodes).where(eq(enrollmentCodes.id, codeId)).get();
  return row ? { status: statusOf(row, ctx.clock.now()), expiresAt: row.expiresAt } : null;
}
