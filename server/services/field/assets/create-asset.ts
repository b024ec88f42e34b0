import { randomUUID } from "node:crypto";
import { configChanged } from "../../agents/config-changed.ts";
import type { AuthContext } from "../../auth/auth-context.ts";
import type { ServiceContext } from "../../context.ts";
import { type AssetDto, toAssetDto } from "../dto.ts";
import type { AssetInput } from "../inputs.ts";
import { visibleProject } from "../lookup.ts";

export function assetColumns(input: AssetInput) {
  return {
    name: input.name.trim(),
    assetType: input.asset_type,
    latitude: input.latitude ?? null,
    longitude: input.longitude ?? null,
  };
}

/** 404 when project_id is unknown or outside the caller's projects. */
export async function createAsset(
  ctx: ServiceContext,
  auth: AuthContext,
  input: AssetInput,
): Promise<AssetDto> {
  const now = ctx.clock.now();
  const id = randomUUID();
  const dto = await ctx.store.transaction(async (tx) => {
    const project = await visibleProject(tx.field, auth, input.project_id);
    const row = await tx.field.insertAsset({
      id,
      projectId: project.id,
      ...assetColumns(input),
      createdAt: now,
      updatedAt: now,
    });
    const dto = toAssetDto(row);
    await tx.audit.append({
      at: now,
      userId: auth.userId,
      projectId: project.id,
      entity: "asset",
      entityId: id,
      action: "create",
      before: null,
      after: dto,
    });
    return dto;
  });
  // A new Sparkplug device and UNS level (the agent's configuration does not change).
  configChanged(ctx, dto.project_id);
  return dto;
}
