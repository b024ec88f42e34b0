import type { InstallerBuildRow, NewInstallerBuildRow } from "../rows.ts";

/** The writable fields of a build (its id and project are fixed). */
export type InstallerBuildChange = Partial<Omit<NewInstallerBuildRow, "id" | "projectId">>;

/** The Windows installer build queue: one row per build, with its bounded log. */
export type InstallerBuildStore = {
  get(id: string): Promise<InstallerBuildRow | undefined>;
  /** The project's build that is queued or running (there is at most one); undefined when none. */
  activeOf(projectId: string): Promise<InstallerBuildRow | undefined>;
  /** The project's newest build by created_at; undefined when it has none. */
  latestOf(projectId: string): Promise<InstallerBuildRow | undefined>;
  /**
   * The project's newest (by finished_at) succeeded build whose file is kept, made from these
   * inputs; undefined when none.
   */
  latestBuilt(
    projectId: string,
    inputs: { agentVersion: string; inputsSha256: string },
  ): Promise<InstallerBuildRow | undefined>;
  /** The oldest queued build (by created_at), the next to run; undefined when the queue is empty. */
  nextQueued(): Promise<InstallerBuildRow | undefined>;
  /** Ids of the builds with this status. */
  idsWithStatus(status: InstallerBuildRow["status"]): Promise<string[]>;
  /** The file names builds still hold (an MSI not named here may be removed). */
  keptFiles(): Promise<string[]>;
  insert(row: NewInstallerBuildRow): Promise<InstallerBuildRow>;
  /** False when the build no longer exists (its project was deleted). */
  update(id: string, change: InstallerBuildChange): Promise<boolean>;
  /**
   * Appends `text` to the build's log, keeping only its last `maxChars` characters (Unicode code
   * points, as SQL counts them).
   */
  appendLog(id: string, text: string, maxChars: number): Promise<void>;
  /**
   * Forgets the files of the project's other succeeded builds (only the newest MSI is kept);
   * returns the ids whose files may now be removed.
   */
  releaseReplaced(projectId: string, newest: string): Promise<string[]>;
};
