import { count, eq } from "drizzle-orm";
import { AppError } from "../../../errors.ts";
import { appendAudit } from "../../../store/sqlite/append-audit.ts";
import { assets, meterReadings, wellTests } from "../../../store/sqlite/schema/index.ts";
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
export function deleteAsset(ctx: ServiceContext, auth: AuthContext, id: string): void {
  const now = ctx.clock.now();
  const projectId = ctx.db.transaction((tx) => {
    const current = visibleAsset(tx, auth, id);
    const tests = tx.select({ n: count() }).from(wellTests).where(eq(wellTests.assetId, id)).get()?.n ?? 0;
    const readings =
      tx.select({ n: count() }).from(meterReadings).where(eq(meterReadings.meterId, id)).get()?.n ?? 0;
    if (tests + readings > 0) {
      throw new AppError(
        "Conflict",
        `asset has operational records (${tests} well tests, ${readings} meter readings) that must be kept; ` +
          "they go only with the whole project",
      );
    }
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
    return current.projectId;
  });
  configChanged(ctx, projectId);
}
