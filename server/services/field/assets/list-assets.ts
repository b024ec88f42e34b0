import type { AuthContext } from "../../auth/auth-context.ts";
import type { ServiceContext } from "../../context.ts";
import { type AssetDto, toAssetDto } from "../dto.ts";
import { visibleAsset, visibleProject } from "../lookup.ts";

export async function getAsset(ctx: ServiceContext, auth: AuthContext, id: string): Promise<AssetDto> {
  return toAssetDto(await visibleAsset(ctx.store.field, auth, id));
}

/** 404 when the project is unknown or not the caller's. */
export async function listProjectAssets(
  ctx: ServiceContext,
  auth: AuthContext,
  projectId: string,
): Promise<AssetDto[]> {
  await visibleProject(ctx.store.field, auth, projectId);
  return (await ctx.store.field.assetsOf(projectId)).map(toAssetDto);
}
