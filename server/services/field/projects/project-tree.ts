import type { FieldStore } from "../../../store/ports/field-store.ts";
import type { AssetRow, DeviceRow, ProjectRow } from "../../../store/rows.ts";
import {
  type AssetTreeDto,
  type DeviceTreeDto,
  type ProjectTreeDto,
  toAssetDto,
  toDeviceDto,
  toProjectDto,
  toVariableDto,
} from "../dto.ts";

/** A device with its variables (the audit entry of its deletion). */
export async function deviceTree(field: FieldStore, device: DeviceRow): Promise<DeviceTreeDto> {
  const variableRows = await field.variablesOf([device.id]);
  return { ...toDeviceDto(device), variables: variableRows.map(toVariableDto) };
}

/** Assets, each with its devices and their variables: two queries whatever the size of the tree. */
export async function assetTrees(field: FieldStore, assetRows: AssetRow[]): Promise<AssetTreeDto[]> {
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
  return assetRows.map((a) => ({ ...toAssetDto(a), devices: devicesByAsset.get(a.id) ?? [] }));
}

/** A project with its assets, their devices and those devices' variables (GET /edge/projects/{id}/full). */
export async function projectTree(field: FieldStore, project: ProjectRow): Promise<ProjectTreeDto> {
  const assets = await assetTrees(field, await field.assetsOf(project.id));
  return { ...toProjectDto(project), assets };
}
