import { badRequest } from "../../errors.ts";
import type { RecordStore } from "../../store/ports/record-store.ts";
import type { AssetType } from "../../store/rows.ts";

/**
 * A record's asset reference (well test → well, meter reading → meter): it must be an asset of
 * the record's own project and of the expected type, else a 400 naming the field.
 */
export async function assertRecordAsset(
  records: RecordStore,
  field: string,
  projectId: string,
  assetId: string,
  expected: AssetType,
): Promise<void> {
  const assetType = await records.assetTypeIn(projectId, assetId);
  if (!assetType) throw badRequest(`${field}: no asset with this id in project ${projectId}`);
  if (assetType !== expected) {
    throw badRequest(`${field}: asset ${assetId} is a ${assetType}, not a ${expected}`);
  }
}
