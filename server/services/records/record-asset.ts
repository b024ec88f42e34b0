import { and, eq } from "drizzle-orm";
import { badRequest } from "../../errors.ts";
import type { DbOrTx } from "../../store/sqlite/append-audit.ts";
import { assets } from "../../store/sqlite/schema/index.ts";

type AssetType = (typeof assets.$inferSelect)["assetType"];

/**
 * A record's asset reference (well test → well, meter reading → meter): it must be an asset of
 * the record's own project and of the expected type, else a 400 naming the field.
 */
export function assertRecordAsset(
  db: DbOrTx,
  field: string,
  projectId: string,
  assetId: string,
  expected: AssetType,
): void {
  const row = db
    .select({ assetType: assets.assetType })
    .from(assets)
    .where(and(eq(assets.id, assetId), eq(assets.projectId, projectId)))
    .get();
  if (!row) throw badRequest(`${field}: no asset with this id in project ${projectId}`);
  if (row.assetType !== expected) {
    throw badRequest(`${field}: asset ${assetId} is a ${row.assetType}, not a ${expected}`);
  }
}
