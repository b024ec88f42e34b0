import { seesAllProjects } from "../../../shared/roles.ts";
import { badRequest, notFound } from "../../errors.ts";
import type { AuditFilter } from "../../store/ports/audit-store.ts";
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
export async function listAudit(
  ctx: ServiceContext,
  auth: AuthContext,
  query: AuditListQuery,
): Promise<AuditEntryDto[]> {
  const seesAll = seesAllProjects(auth.role);
  let projectIds: readonly string[] | undefined;
  if (query.project_id !== undefined) {
    if (!seesAll && !auth.projectIds.has(query.project_id)) throw notFound("project");
    projectIds = [query.project_id];
  } else if (!seesAll) {
    projectIds = [...auth.projectIds];
  }
  const from = query.from === undefined ? undefined : new Date(query.from);
  const to = query.to === undefined ? undefined : new Date(query.to);
  if (from && to && to.getTime() < from.getTime()) throw badRequest("to: must not be before from");
  const filter: AuditFilter = {
    ...(projectIds && { projectIds }),
    ...(from && { from }),
    ...(to && { to }),
    ...(query.entity !== undefined && { entity: query.entity }),
    ...(query.entity_id !== undefined && { entityId: query.entity_id }),
    ...(query.before_seq !== undefined && { beforeSeq: query.before_seq }),
    limit: query.limit ?? AUDIT_LIST_DEFAULT,
  };
  return (await ctx.store.audit.list(filter)).map(toAuditEntryDto);
}
