import { and, desc, eq, gte, inArray, lt, type SQL } from "drizzle-orm";
import { seesAllProjects } from "../../../shared/roles.ts";
import { badRequest, notFound } from "../../errors.ts";
import { auditLog } from "../../store/sqlite/schema/index.ts";
import type { AuthContext } from "../auth/auth-context.ts";
import type { ServiceContext } from "../context.ts";
import { type AuditEntryDto, toAuditEntryDto } from "./audit-dto.ts";

export const AUDIT_LIST_DEFAULT = 100;
export const AUDIT_LIST_MAX = 1000;

export type AuditListQuery = {
  project_id?: string | undefined;
  /** ISO 8601; `from` inclusive, `to` exclusive, on the entry's `at`. */
  from?: string | undefined;
  to?: string | undefined;
  entity?: string | undefined;
  entity_id?: string | undefined;
  /** Page backwards: only entries older than this seq. */
  before_seq?: number | undefined;
  limit?: number | undefined;
};

/**
 * Audit entries, newest first. Superadmin and admin read the whole log, including entries
 * outside any project (users, subscriptions) and those of deleted projects. Other readers
 * (supervisor) only read entries of their own projects: a project_id outside them is a 404.
 */
export function listAudit(ctx: ServiceContext, auth: AuthContext, query: AuditListQuery): AuditEntryDto[] {
  const conditions: SQL[] = [];
  const seesAll = seesAllProjects(auth.role);
  if (query.project_id !== undefined) {
    if (!seesAll && !auth.projectIds.has(query.project_id)) throw notFound("project");
    conditions.push(eq(auditLog.projectId, query.project_id));
  } else if (!seesAll) {
    if (auth.projectIds.size === 0) return [];
    conditions.push(inArray(auditLog.projectId, [...auth.projectIds]));
  }
  const from = query.from === undefined ? undefined : new Date(query.from);
  const to = query.to === undefined ? undefined : new Date(query.to);
  if (from && to && to.getTime() < from.getTime()) throw badRequest("to: must not be before from");
  if (from) conditions.push(gte(auditLog.at, from));
  if (to) conditions.push(lt(auditLog.at, to));
  if (query.entity !== undefined) conditions.push(eq(auditLog.entity, query.entity));
  if (query.entity_id !== undefined) conditions.push(eq(auditLog.entityId, query.entity_id));
  if (query.before_seq !== undefined) conditions.push(lt(auditLog.seq, query.before_seq));
  return ctx.db
    .select()
    .from(auditLog)
    .where(and(...conditions))
    .orderBy(desc(auditLog.seq))
    .limit(query.limit ?? AUDIT_LIST_DEFAULT)
    .all()
    .map(toAuditEntryDto);
}
