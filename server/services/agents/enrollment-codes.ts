import { randomUUID } from "node:crypto";
import { AppError, badRequest, notFound } from "../../errors.ts";
import type { AgentStore } from "../../store/ports/agent-store.ts";
import type { FieldStore } from "../../store/ports/field-store.ts";
import type { EnrollmentCodeRow } from "../../store/rows.ts";
import { type AuthContext, assertProjectVisible } from "../auth/auth-context.ts";
import { randomToken, sha256Hex } from "../auth/tokens.ts";
import type { ServiceContext } from "../context.ts";
import { agentMqttUsername, replaceAgentToken } from "./agent-token.ts";

export type EnrollmentPurpose = EnrollmentCodeRow["purpose"];
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

type CodeRow = EnrollmentCodeRow;

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

async function assertProjectExists(field: FieldStore, projectId: string): Promise<void> {
  if (!(await field.project(projectId))) throw notFound("project");
}

/**
 * Issues a one-time enrollment code for the project, shown once; only its SHA-256 is stored.
 * `by` null: the system issued it (an install script download, an MSI build); it is still audited.
 */
export async function issueEnrollmentCode(
  ctx: ServiceContext,
  by: AuthContext | null,
  projectId: string,
  opts: { purpose?: EnrollmentPurpose; ttlSeconds?: number } = {},
): Promise<IssuedEnrollmentCode> {
  if (by) assertProjectVisible(by, projectId);
  const ttl = opts.ttlSeconds ?? ENROLLMENT_CODE_TTL_SECONDS;
  if (!Number.isInteger(ttl) || ttl < 1 || ttl > ENROLLMENT_CODE_MAX_TTL_SECONDS)
    throw badRequest(`ttl_seconds must be an integer from 1 to ${ENROLLMENT_CODE_MAX_TTL_SECONDS}`);
  const purpose = opts.purpose ?? "manual";
  const now = ctx.clock.now();
  const expiresAt = new Date(now.getTime() + ttl * 1000);
  const id = randomUUID();
  const code = `${ENROLLMENT_CODE_PREFIX}${randomToken(32)}`;
  const codeHash = sha256Hex(code);
  await ctx.store.transaction(async (tx) => {
    await assertProjectExists(tx.field, projectId);
    await tx.agents.insertEnrollmentCode({
      id,
      projectId,
      codeHash,
      purpose,
      createdBy: by?.userId ?? null,
      createdAt: now,
      expiresAt,
    });
    await tx.audit.append({
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
export async function listEnrollmentCodes(
  ctx: ServiceContext,
  auth: AuthContext,
  projectId: string,
): Promise<EnrollmentCodeDto[]> {
  assertProjectVisible(auth, projectId);
  await assertProjectExists(ctx.store.field, projectId);
  const now = ctx.clock.now();
  return (await ctx.store.agents.enrollmentCodesOf(projectId)).map((row) => toDto(row, now));
}

/**
 * Revokes a code: it no longer enrolls an agent nor downloads a binary, so an installer made with it
 * stops working. Revoking a revoked code changes nothing and is not audited again.
 */
export async function revokeEnrollmentCode(
  ctx: ServiceContext,
  auth: AuthContext,
  projectId: string,
  codeId: string,
): Promise<EnrollmentCodeDto> {
  assertProjectVisible(auth, projectId);
  const now = ctx.clock.now();
  return ctx.store.transaction(async (tx) => {
    await assertProjectExists(tx.field, projectId);
    const row = await tx.agents.enrollmentCode(codeId);
    if (row?.projectId !== projectId) throw notFound("enrollment code");
    if (row.revokedAt || !(await tx.agents.revokeEnrollmentCode(codeId, now))) {
      // Revoked already (by another transaction, when its revocation committed after our read).
      const current = row.revokedAt ? row : await tx.agents.enrollmentCode(codeId);
      return toDto(current ?? row, now);
    }
    await tx.audit.append({
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
 * Revokes, as the system, the project's active codes that `which` picks: an MSI build revokes the
 * codes of the MSIs it replaces (only the newest is served, so an older copy must not enroll for
 * the rest of its 7 days), and a failed build its own. Audited with `reason`; returns the ids.
 */
export async function revokeCodesAsSystem(
  ctx: ServiceContext,
  projectId: string,
  which: (code: CodeRow) => boolean,
  reason: string,
): Promise<string[]> {
  const now = ctx.clock.now();
  return ctx.store.transaction(async (tx) => {
    const revoked: string[] = [];
    for (const row of await tx.agents.enrollmentCodesOf(projectId)) {
      if (statusOf(row, now) !== "active" || !which(row)) continue;
      if (!(await tx.agents.revokeEnrollmentCode(row.id, now))) continue;
      await tx.audit.append({
        at: now,
        userId: null,
        projectId,
        entity: "enrollment_code",
        entityId: row.id,
        action: "update",
        before: { status: "active" },
        after: { status: "revoked", revoked_at: now.toISOString(), reason },
      });
      revoked.push(row.id);
    }
    return revoked;
  });
}

/**
 * What a code is worth now, for callers that accept one: the binary download takes an active or a
 * used code (the binary holds no secret, and re-running an installer downloads it again); a cached
 * MSI is served only while its code is active. Null for a code that was never issued.
 */
export async function enrollmentCodeState(
  ctx: ServiceContext,
  code: string,
): Promise<{ id: string; projectId: string; status: EnrollmentCodeStatus } | null> {
  const row = await ctx.store.agents.enrollmentCodeByHash(sha256Hex(code));
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
 * token replaced in one transaction, and the claim is conditional (claimEnrollmentCode), so of two
 * concurrent calls with one code exactly one succeeds. Like issueAgentToken, the new token revokes
 * the project's previous one.
 */
export async function enrollAgent(
  ctx: ServiceContext,
  code: string,
  meta: { address?: string; hostname?: string; projectId?: string },
): Promise<Enrollment> {
  const now = ctx.clock.now();
  const hash = sha256Hex(code);
  const enrolled = await ctx.store.transaction(async (tx) => {
    const row = await tx.agents.enrollmentCodeByHash(hash);
    if (!row) throw new AppError("InvalidEnrollmentCode", "the enrollment code is not valid");
    // An agent configured for another project must not take (and rotate) this project's token.
    if (meta.projectId !== undefined && meta.projectId !== row.projectId)
      throw new AppError(
        "InvalidEnrollmentCode",
        "this enrollment code belongs to another project than project_id",
      );
    const status = statusOf(row, now);
    if (status !== "active") throw refusal(status, row);
    if (!(await tx.agents.claimEnrollmentCode(row.id, now))) throw refusal("used", { ...row, usedAt: now });
    const token = await replaceAgentToken(tx, row.projectId, null, now);
    await tx.audit.append({
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
  });
  ctx.events.emit("agentTokenRotated", { projectId: enrolled.projectId });
  return {
    project_id: enrolled.projectId,
    agent_token: enrolled.token,
    mqtt_username: agentMqttUsername(enrolled.projectId),
  };
}

/**
 * What an issued code is worth now, by its id: an MSI build keeps its code's id, never the code.
 * Null when no such code exists (or its project was deleted). `agents`: the store's port, or the
 * caller's transaction's.
 */
export async function enrollmentCodeStatusById(
  ctx: ServiceContext,
  agents: AgentStore,
  codeId: string,
): Promise<{ status: EnrollmentCodeStatus; expiresAt: Date } | null> {
  const row = await agents.enrollmentCode(codeId);
  return row ? { status: statusOf(row, ctx.clock.now()), expiresAt: row.expiresAt } : null;
}
