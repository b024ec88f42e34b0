import { asc, eq, inArray } from "drizzle-orm";
import type { FieldStore } from "../../../store/ports/field-store.ts";
import type { ProjectRow } from "../../../store/rows.ts";
import type { DbOrTx } from "../../../store/sqlite/append-audit.ts";
import { type assets, devices, type projects, variables } from "../../../store/sqlite/schema/index.ts";
import {
  type AssetTreeDto,
  type DeviceTreeDto,
  type ProjectTreeDto,
  toAssetDto,
  toDeviceDto,
  toProjectDto,
  toVariableDto,
} from "../dto.ts";

type AssetRow = typeof assets.$inferSelect;
type DeviceRow = typeof devices.$inferSelect;

export function deviceTree(db: DbOrTx, device: DeviceRow): DeviceTreeDto {
  const variableRows = db
    .select()
    .from(variables)
    .where(eq(variables.deviceId, device.id))
    .orderBy(asc(variables.alias), asc(variables.id))
    .all();
  return { ...toDeviceDto(device), variables: variableRows.map(toVariableDto) };
}

/** Devices of `assetIds`, each with its variables: two queries whatever the size of the tree. */
export function deviceTrees(db: DbOrTx, assetIds: string[]): Map<string, DeviceTreeDto[]> {
  const byAsset = new Map<string, DeviceTreeDto[]>(assetIds.map((id) => [id, []]));
  if (assetIds.length === 0) return byAsset;
  const deviceRows = db
    .select()
    .from(devices)
    .where(inArray(devices.assetId, assetIds))
    .orderBy(asc(devices.name), asc(devices.id))
    .all();
  const byDevice = new Map<string, DeviceTreeDto>();
  for (const d of deviceRows) {
    const tree = { ...toDeviceDto(d), variables: [] };
    byDevice.set(d.id, tree);
    byAsset.get(d.assetId)?.push(tree);
  }
  if (deviceRows.length === 0) return byAsset;
  const variableRows = db
    .select()
    .from(variables)
    .where(
      inArray(
        variables.deviceId,
        deviceRows.map((d) => d.id),
      ),
    )
    .orderBy(asc(variables.alias), asc(variables.id))
    .all();
  for (const v of variableRows) byDevice.get(v.deviceId)?.variables.push(toVariableDto(v));
  return byAsset;
}

export function assetTrees(db: DbOrTx, assetRows: AssetRow[]): AssetTreeDto[] {
  const devicesByAsset = deviceTrees(
    db,
    assetRows.map((a) => a.id),
  );
  return assetRows.map((a) => ({ ...toAssetDto(a), devices: devicesByAsset.get(a.id) ?? [] }));
}

/** A project with its assets, their devices and those devices' variables (GET /edge/projects/{id}/full). */
export async function projectTree(field: FieldStore, project: ProjectRow): Promise<ProjectTreeDto> {
  const assetRows = await field.assetsOf(project.id);
  const deviceRows = await field.devicesOf(assetRows.map((a) => a.id));
  const variableRows = await field.variablesOf(deviceRows.map((d) => d.id));
  const devicesByAsset = new Map<string, DeviceTreeDto[]>(assetRows.map((a) => [a.id, []]));
  const byDevice = new Map<string, DeviceTreeDto>();
  for (const d of deviceRows) {
    const tree = { ...toDeviceDto(d), variables: [] };
    byDevice.set(d.id, tree);
    devicesByAsset.get(d.assetId)?.push(tree);
  }
  for (const v of variableRows) byDevice.get(v.deviceId)?.variables.push(toVariableDto(v));
  const assetsTree = assetRows.map((a) => ({ ...toAssetDto(a), devices: devicesByAsset.get(a.id) ?? [] }));
  return { ...toProjectDto(project), assets: assetsTree };
}
