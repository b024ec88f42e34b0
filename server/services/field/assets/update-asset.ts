import { eq } from "drizzle-orm";
import { badRequest, notFound } from "../../../errors.ts";
import { appendAudit } from "../../../store/sqlite/append-audit.ts";
import { assets } from "../../../store/sqlite/schema/index.ts";
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
export function replaceAsset(
  ctx: ServiceContext,
  auth: AuthContext,
  id: string,
  input: AssetInput,
): AssetDto {
  const now = ctx.clock.now();
  const after = ctx.db.transaction((tx) => {
    const current = visibleAsset(tx, auth, id);
    if (input.project_id !== current.projectId) {
      throw badRequest("project_id: an asset cannot be moved to another project; create a new asset there");
    }
    const row = tx
      .update(assets)
      .set({ ...assetColumns(input), updatedAt: now })
      .where(eq(assets.id, id))
      .returning()
      .get();
    if (!row) throw notFound("asset");
    const after = toAssetDto(row);
    appendAudit(tx, {
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
