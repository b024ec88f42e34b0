import { and, asc, eq, inArray, type SQL } from "drizzle-orm";
import { seesAllProjects } from "../../../../shared/roles.ts";
import { assets } from "../../../store/sqlite/schema/index.ts";
import type { AuthContext } from "../../auth/auth-context.ts";
import type { ServiceContext } from "../../context.ts";
import { type AssetDto, toAssetDto } from "../dto.ts";
import { visibleProjectRow } from "../lookup.ts";

/** GET /tanks: the tanks of one project (404 if not the caller's), or of every project the caller sees. */
export function listTanks(ctx: ServiceContext, auth: AuthContext, projectId: string | undefined): AssetDto[] {
  const conditions: SQL[] = [eq(assets.assetType, "tank")];
  if (projectId !== undefined) {
    visibleProjectRow(ctx.db, auth, projectId);
    conditions.push(eq(assets.projectId, projectId));
  } else if (!seesAllProjects(auth.role)) {
    if (auth.projectIds.size === 0) return [];
    conditions.push(inArray(assets.projectId, [...auth.projectIds]));
  }
  return ctx.db
    .select()
    .from(assets)
    .where(and(...conditions))
    .orderBy(asc(assets.name), asc(assets.id))
    .all()
    .map(toAssetDto);
}
