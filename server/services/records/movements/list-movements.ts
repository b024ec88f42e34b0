import { desc } from "drizzle-orm";
import { movements } from "../../../store/sqlite/schema/index.ts";
import type { AuthContext } from "../../auth/auth-context.ts";
import type { ServiceContext } from "../../context.ts";
import { successorsOf } from "../corrections.ts";
import { listLimit, type RecordListQuery, recordListWhere } from "../list-filter.ts";
import { type MovementDto, toMovementDto } from "./movement-dto.ts";

/** Movements of the caller's projects, newest `timestamp` first, superseded ones included. */
export function listMovements(ctx: ServiceContext, auth: AuthContext, query: RecordListQuery): MovementDto[] {
  const where = recordListWhere(ctx.db, auth, movements, movements.timestamp, query);
  if (where === null) return [];
  const rows = ctx.db
    .select()
    .from(movements)
    .where(where)
    .orderBy(desc(movements.timestamp), desc(movements.createdAt), desc(movements.id))
    .limit(listLimit(query))
    .all();
  const successors = successorsOf(
    ctx.db,
    movements,
    rows.map((r) => r.id),
  );
  return rows.map((r) => toMovementDto(r, successors.get(r.id) ?? null));
}
