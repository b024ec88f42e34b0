import { and, gte, inArray, lt, type SQL } from "drizzle-orm";
import type { AnySQLiteColumn } from "drizzle-orm/sqlite-core";
import { seesAllProjects } from "../../../shared/roles.ts";
import { badRequest } from "../../errors.ts";
import type { DbOrTx } from "../../store/sqlite/append-audit.ts";
import type { AuthContext } from "../auth/auth-context.ts";
import { assertRecordProject } from "./record-project.ts";
import type { RecordTable } from "./record-tables.ts";

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
 * The WHERE of a record list: one project (404 when not the caller's), or else every project the
 * caller sees; then the half-open window [from, to) on the record's own instant, so consecutive
 * production days never count a record twice. `null` when the caller sees no project at all.
 */
export function recordListWhere(
  db: DbOrTx,
  auth: AuthContext,
  table: RecordTable,
  instant: AnySQLiteColumn,
  query: RecordListQuery,
): SQL | undefined | null {
  const from = query.from === undefined ? undefined : new Date(query.from);
  const to = query.to === undefined ? undefined : new Date(query.to);
  if (from && to && to.getTime() < from.getTime()) throw badRequest("to: must not be before from");
  const conditions: SQL[] = [];
  if (query.project_id !== undefined) {
    assertRecordProject(db, auth, query.project_id);
    conditions.push(inArray(table.projectId, [query.project_id]));
  } else if (!seesAllProjects(auth.role)) {
    if (auth.projectIds.size === 0) return null;
    conditions.push(inArray(table.projectId, [...auth.projectIds]));
  }
  if (from) conditions.push(gte(instant, from));
  if (to) conditions.push(lt(instant, to));
  return and(...conditions);
}

export const listLimit = (query: RecordListQuery) => query.limit ?? RECORD_LIST_DEFAULT;
