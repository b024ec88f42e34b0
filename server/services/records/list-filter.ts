import { seesAllProjects } from "../../../shared/roles.ts";
import { badRequest } from "../../errors.ts";
import type { FieldStore } from "../../store/ports/field-store.ts";
import type { RecordListFilter } from "../../store/ports/record-store.ts";
import type { AuthContext } from "../auth/auth-context.ts";
import { visibleProject } from "../field/lookup.ts";

export const RECORD_LIST_DEFAULT = 1000;
export const RECORD_LIST_MAX = 10_000;

/** Query of every record list: all optional; `from` inclusive, `to` exclusive. */
export type RecordListQuery = {
  project_id?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
  limit?: number | undefined;
};

/**
 * The filter of a record list: one project (404 when not the caller's), or else every project the
 * caller sees; then the half-open window [from, to) on the record's own instant, so consecutive
 * production days never count a record twice. `null` when the caller sees no project at all.
 */
export async function recordListFilter(
  field: FieldStore,
  auth: AuthContext,
  query: RecordListQuery,
): Promise<RecordListFilter | null> {
  const from = query.from === undefined ? undefined : new Date(query.from);
  const to = query.to === undefined ? undefined : new Date(query.to);
  if (from && to && to.getTime() < from.getTime()) throw badRequest("to: must not be before from");
  let projectIds: string[] | undefined;
  if (query.project_id !== undefined) {
    await visibleProject(field, auth, query.project_id);
    projectIds = [query.project_id];
  } else if (!seesAllProjects(auth.role)) {
    if (auth.projectIds.size === 0) return null;
    projectIds = [...auth.projectIds];
  }
  return { projectIds, from, to, limit: query.limit ?? RECORD_LIST_DEFAULT };
}
