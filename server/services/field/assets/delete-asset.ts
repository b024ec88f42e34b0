import { AppError, notFound } from "../../../errors.ts";
import { configChanged } from "../../agents/config-changed.ts";
import type { AuthContext } from "../../auth/auth-context.ts";
import type { ServiceContext } from "../../context.ts";
import { visibleAsset } from "../lookup.ts";
import { assetTrees } from "../projects/project-tree.ts";

/**
 * Spec §4: "its devices removed". Foreign keys cascade to devices, variables, telemetry series
 * (raw rows and rollups by trigger) and alarms. An asset named by operational records (well tests,
 * meter readings) is refused with 409: those are regulatory quantity records, kept original and
 * unaltered (API MPMS 21.1), and only the deletion of the whole project may take them.
 */
export async function deleteAsset(ctx: ServiceContext, auth: AuthContext, id: string): Promise<void> {
  const now = ctx.clock.now();
  const projectId = await ctx.store.transaction(async (tx) => {
    const current = await visibleAsset(tx.field, auth, id, "update");
    const records = await tx.field.assetRecordCounts(id);
    if (records.wellTests + records.meterReadings > 0) {
      throw new AppError(
        "Conflict",
        `asset has operational records (${records.wellTests} well tests, ${records.meterReadings} meter readings) ` +
          "that must be kept; they go only with the whole project",
      );
    }
    const [before] = await assetTrees(tx.field, [current]);
    // Read above, but a concurrent delete may have taken it since: then this one is a 404.
    if (!(await tx.field.deleteAsset(id))) throw notFound("asset");
    await tx.audit.append({
      at: now,
      userId: auth.userId,
      projectId: current.projectId,
      entity: "asset",
      entityId: id,
      action: "delete",
      before: before ?? null,
      after: null,
    });
    return current.projectId;
  });
  configChanged(ctx, projectId);
}
