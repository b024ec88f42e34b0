import { badRequest, notFound } from "../../../errors.ts";
import { configChanged } from "../../agents/config-changed.ts";
import type { AuthContext } from "../../auth/auth-context.ts";
import type { ServiceContext } from "../../context.ts";
import { type AssetDto, toAssetDto } from "../dto.ts";
import type { AssetInput } from "../inputs.ts";
import { visibleAsset } from "../lookup.ts";
import { assetColumns } from "./create-asset.ts";

/**
 * PUT semantics: the body replaces every writable field. project_id must stay the asset's own:
 * its telemetry series, alarms and records are filed under that project, and moving them
 * silently would rewrite history.
 */
export async function replaceAsset(
  ctx: ServiceContext,
  auth: AuthContext,
  id: string,
  input: AssetInput,
): Promise<AssetDto> {
  const now = ctx.clock.now();
  const after = await ctx.store.transaction(async (tx) => {
    const current = await visibleAsset(tx.field, auth, id);
    if (input.project_id !== current.projectId) {
      throw badRequest("project_id: an asset cannot be moved to another project; create a new asset there");
    }
    const row = await tx.field.updateAsset(id, { ...assetColumns(input), updatedAt: now });
    if (!row) throw notFound("asset");
    const after = toAssetDto(row);
    await tx.audit.append({
      at: now,
      userId: auth.userId,
      projectId: current.projectId,
      entity: "asset",
      entityId: id,
      action: "update",
      before: toAssetDto(current),
      after,
    });
    return after;
  });
  // A renamed asset is another Sparkplug device_id and UNS level.
  configChanged(ctx, after.project_id);
  return after;
}
