import type { AssetRow, DeviceRow, NewProjectRow, ProjectRow, VariableRow } from "../rows.ts";

/** Projects and their field model: assets, devices, variables. */
export type FieldStore = {
  /** Every project, or those of `ids`, by name then id. */
  projects(ids?: readonly string[]): Promise<ProjectRow[]>;
  project(id: string): Promise<ProjectRow | undefined>;
  /** The project whose slug is `slug`, other than `except`. */
  projectIdWithSlug(slug: string, except?: string): Promise<string | undefined>;
  /** The project slugs that begin with `prefix`. */
  projectSlugsFrom(prefix: string): Promise<string[]>;
  insertProject(row: NewProjectRow): Promise<ProjectRow>;
  /** The updated row; undefined when there is no such project. */
  updateProject(id: string, set: Partial<Omit<NewProjectRow, "id">>): Promise<ProjectRow | undefined>;
  /** Removes the project and, through the foreign keys, everything under it. */
  deleteProject(id: string): Promise<void>;
  /** Gives `userId` access to the project (users who see only assigned projects). */
  assignProject(userId: string, projectId: string): Promise<void>;
  /** The project's assets, by name then id. */
  assetsOf(projectId: string): Promise<AssetRow[]>;
  /** The devices of these assets, by name then id. */
  devicesOf(assetIds: readonly string[]): Promise<DeviceRow[]>;
  /** The variables of these devices, by alias then id. */
  variablesOf(deviceIds: readonly string[]): Promise<VariableRow[]>;
};
