import type { AuthContext } from "../../auth/auth-context.ts";
import type { ServiceContext } from "../../context.ts";
import { type RecordListQuery, recordListFilter } from "../list-filter.ts";
import { type MovementDto, toMovementDto } from "./movement-dto.ts";

/** Movements of the caller's projects, newest `timestamp` first, superseded ones included. */
export async function listMovements(
  ctx: ServiceContext,
  auth: AuthContext,
  query: RecordListQuery,
): Promise<MovementDto[]> {
  const filter = await recordListFilter(ctx.store.field, auth, query);
  if (filter === null) return [];
  const listed = await ctx.store.records.list("movement", filter);
  return listed.map((r) => toMovementDto(r.row, r.supersededBy));
}
