import type { InstallerBuildRow } from "../../../store/rows.ts";

export type { InstallerBuildRow };
export type InstallerBuildStatus = InstallerBuildRow["status"];

export type InstallerBuildDto = {
  id: string;
  project_id: string;
  status: InstallerBuildStatus;
  rebuild: boolean;
  server_url: string;
  agent_version: string | null;
  /** The code the MSI carries (revoke it at DELETE …/enrollment-codes/{code_id}); null before the build runs. */
  enrollment_code_id: string | null;
  /** The built MSI while it is kept; null before success and once a newer build replaced it. */
  installer: { bytes: number; sha256: string } | null;
  log: string;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
};

export function toInstallerBuildDto(row: InstallerBuildRow): InstallerBuildDto {
  return {
    id: row.id,
    project_id: row.projectId,
    status: row.status,
    rebuild: row.rebuild,
    server_url: row.serverUrl,
    agent_version: row.agentVersion,
    enrollment_code_id: row.enrollmentCodeId,
    installer:
      row.file !== null && row.bytes !== null && row.sha256 !== null
        ? { bytes: row.bytes, sha256: row.sha256 }
        : null,
    log: row.log,
    created_at: row.createdAt.toISOString(),
    started_at: row.startedAt?.toISOString() ?? null,
    finished_at: row.finishedAt?.toISOString() ?? null,
  };
}
