import { randomUUID } from "node:crypto";
import { appendAudit } from "../../../store/sqlite/append-audit.ts";
import { assets } from "../../../store/sqlite/schema/index.ts";
import { configChanged } from "../../agents/config-changed.ts";
import type { AuthContext } from "../../auth/auth-context.ts";
import type { ServiceContext } from "../../context.ts";
import { type AssetDto, toAssetDto } from "../dto.ts";
import type { AssetInput } from "../inputs.ts";
import { visibleProjectRow } from "../lookup.ts";

export function assetColumns(input: AssetInput) {
  return {
    name: input.name.trim(),
    assetType: input.asset_type,
    latitude: input.latitude ?? null,
    longitude: input.longitude ?? null,
  };
}

/** 404 when project_id is unknown or outside the caller's projects. */
export function createAsset(ctx: ServiceContext, auth: AuthContext, input: AssetInput): AssetDto {
  const now = ctx.clock.now();
  const id = randomUUID();
  const dto = ctx.db.transaction((tx) => {
    const project = visibleProjectRow(tx, auth, input.project_id);
    const row = tx
      .insert(assets)
      .values({ id, projectId: project.id, ...assetColumns(input), createdAt: now, updatedAt: now })
      .returning()
      .get();
    const dto = toAssetDto(row);
    appendAudit(tx, {
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
