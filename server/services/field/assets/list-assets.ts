import { asc, eq } from "drizzle-orm";
import { assets } from "../../../store/sqlite/schema/index.ts";
import type { AuthContext } from "../../auth/auth-context.ts";
import type { ServiceContext } from "../../context.ts";
import { type AssetDto, toAssetDto } from "../dto.ts";
import { visibleAsset, visibleProjectRow } from "../lookup.ts";

export function getAsset(ctx: ServiceContext, auth: AuthContext, id: string): AssetDto {
  return toAssetDto(visibleAsset(ctx.db, auth, id));
}

/** 404 when the project is unknown or not the caller's. */
export function listProjectAssets(ctx: ServiceContext, auth: AuthContext, projectId: string): AssetDto[] {
  visibleProjectRow(ctx.db, auth, projectId);
  return ctx.db
    .select()
    .from(assets)
    .where(eq(assets.projectId, projectId))
    .orderBy(asc(assets.name), asc(assets.id))
    .all()
    .map(toAssetDto);
}
