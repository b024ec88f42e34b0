import { eq } from "drizzle-orm";
import { assets } from "../../../db/schema/index.ts";
import { appendAudit } from "../../audit/append-audit.ts";
import type { AuthContext } from "../../auth/auth-context.ts";
import type { ServiceContext } from "../../context.ts";
import { visibleAsset } from "../lookup.ts";
import { assetTrees } from "../projects/project-tree.ts";

/**
 * Spec §4: "its devices removed". Foreign keys cascade to devices, variables, telemetry series
 * (raw rows and rollups by trigger), alarms and the asset's well tests and meter readings.
 */
export function deleteAsset(ctx: ServiceContext, auth: AuthContext, id: string): void {
  const now = ctx.clock.now();
  ctx.db.transaction((tx) => {
    const current = visibleAsset(tx, auth, id);
    const [before] = assetTrees(tx, [current]);
    tx.delete(assets).where(eq(assets.id, id)).run();
    appendAudit(tx, {
      at: now,
      userId: auth.userId,
      projectId: current.projectId,
      entity: "asset",
      entityId: id,
      action: "delete",
      before: before ?? null,
      after: null,
    });
  });
}
