import type {
  AssetRow,
  DeviceRow,
  NewAssetRow,
  NewDeviceRow,
  NewProjectRow,
  NewVariableRow,
  ProjectRow,
  VariableRow,
} from "../rows.ts";

/** A device, with the project its asset belongs to. */
export type DeviceInProject = { device: DeviceRow; projectId: string };

/**
 * A row lock a read inside a transaction may take, held until the transaction ends (PostgreSQL's
 * FOR KEY SHARE and FOR UPDATE; SQLite's single writer needs none). `key share`: adding a child
 * under the row, which must not go meanwhile. `update`: deleting it; a delete waits for the
 * children being added, and they wait for it, then find no parent (404), instead of a 500 from
 * the foreign key.
 */
export type RowLock = "key share" | "update";

/** A variable, with its device's asset and protocol and the project they belong to. */
export type VariableInProject = {
  variable: VariableRow;
  assetId: string;
  protocol: DeviceRow["protocol"];
  projectId: string;
};

/** Projects and their field model: assets, devices, variables. */
export type FieldStore = {
  /** Every project, or those of `ids`, by name then id. */
  projects(ids?: readonly string[]): Promise<ProjectRow[]>;
  /** The active projects (is_active), every one or those of `ids`, by name then id. */
  activeProjects(ids?: readonly string[]): Promise<ProjectRow[]>;
  project(id: string): Promise<ProjectRow | undefined>;
  /**
   * The project whose slug is `slug`, other than `except`. Inside a transaction this and
   * projectSlugsFrom hold project slugs until it ends: concurrent creators see each other's.
   */
  projectIdWithSlug(slug: string, except?: string): Promise<string | undefined>;
  /** The project slugs that begin with `prefix`. */
  projectSlugsFrom(prefix: string): Promise<string[]>;
  insertProject(row: NewProjectRow): Promise<ProjectRow>;
  /** The updated row; undefined when there is no such project. */
  updateProject(id: string, set: Partial<Omit<NewProjectRow, "id">>): Promise<ProjectRow | undefined>;
  /**
   * Removes the project and, through the foreign keys, everything under it. False when there was
   * no such project (a concurrent delete took it first: the caller's 404).
   */
  deleteProject(id: string): Promise<boolean>;
  /** Gives `userId` access to the project (users who see only assigned projects). */
  assignProject(userId: string, projectId: string): Promise<void>;

  /** The asset; undefined when there is no such asset. `lock`: see RowLock. */
  asset(id: string, lock?: RowLock): Promise<AssetRow | undefined>;
  /** The project's assets, by name then id. */
  assetsOf(projectId: string): Promise<AssetRow[]>;
  /**
   * The assets of type "tank" in the projects of `projectIds` (none when it is empty), or in every
   * project when it is undefined; by name then id.
   */
  tanks(projectIds?: readonly string[]): Promise<AssetRow[]>;
  insertAsset(row: NewAssetRow): Promise<AssetRow>;
  /** The updated row; undefined when there is no such asset. An asset never changes project. */
  updateAsset(id: string, set: Partial<Omit<NewAssetRow, "id" | "projectId">>): Promise<AssetRow | undefined>;
  /**
   * Removes the asset and, through the foreign keys, its devices, their variables, its telemetry
   * series (raw rows and rollups) and its alarms. False when there was no such asset. Operational
   * records naming it make the database refuse (they are append-only): check assetRecordCounts first.
   */
  deleteAsset(id: string): Promise<boolean>;
  /**
   * How many operational records name the asset: well tests of it, and meter readings of it as
   * the meter (0 and 0 when there is no such asset). Inside a transaction the asset row stays
   * locked until it ends, and the counts are read after the lock is held: a record being written
   * for the asset (RecordStore.assetTypeIn) is either counted or waits, then finds no asset.
   */
  assetRecordCounts(assetId: string): Promise<{ wellTests: number; meterReadings: number }>;

  /** The device and its asset's project; undefined when there is no such device. `lock` (the device row): see RowLock. */
  device(id: string, lock?: RowLock): Promise<DeviceInProject | undefined>;
  /** The devices of these assets, by name then id (none when `assetIds` is empty). */
  devicesOf(assetIds: readonly string[]): Promise<DeviceRow[]>;
  insertDevice(row: NewDeviceRow): Promise<DeviceRow>;
  /** The updated row; undefined when there is no such device. A device never changes asset. */
  updateDevice(
    id: string,
    set: Partial<Omit<NewDeviceRow, "id" | "assetId">>,
  ): Promise<DeviceRow | undefined>;
  /** Removes the device and, through the foreign keys, its variables. False when there was no such device. */
  deleteDevice(id: string): Promise<boolean>;

  /** The variable, its device's asset and protocol, and their project; undefined when there is no such variable. */
  variable(id: string): Promise<VariableInProject | undefined>;
  /** The variables of these devices, by alias then id (none when `deviceIds` is empty). */
  variablesOf(deviceIds: readonly string[]): Promise<VariableRow[]>;
  /**
   * A variable, other than `except`, of any device of asset `assetId` whose alias is `alias`
   * (case counts): its id and device. Undefined when there is none. While the
   * alias rule holds there is at most one; of several, the one with the lowest id. Inside a
   * transaction it holds the asset's aliases until it ends: concurrent creators on two devices of
   * one asset see each other's (the unique index covers one device only).
   */
  variableWithAlias(
    assetId: string,
    alias: string,
    except?: string,
  ): Promise<{ id: string; deviceId: string } | undefined>;
  insertVariable(row: NewVariableRow): Promise<VariableRow>;
  /** The updated row; undefined when there is no such variable. A variable never changes device. */
  updateVariable(
    id: string,
    set: Partial<Omit<NewVariableRow, "id" | "deviceId">>,
  ): Promise<VariableRow | undefined>;
  /** Removes the variable. False when there was no such variable. */
  deleteVariable(id: string): Promise<boolean>;
};
