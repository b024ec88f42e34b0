import { createHash } from "node:crypto";

/** A name-based UUID (RFC 9562 §5.8, version 8) of a project id and a purpose: stable, stored nowhere. */
function projectGuid(projectId: string, purpose: string): string {
  const bytes = createHash("sha256").update(`caudal-agent-msi\0${purpose}\0${projectId}`).digest();
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x80; // version 8
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80; // variant 10
  const hex = bytes.subarray(0, 16).toString("hex").toUpperCase();
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * The project's UpgradeCode: the same for every build of the project, so a newer MSI replaces the
 * installed one (MajorUpgrade), and different between projects.
 */
export function msiUpgradeCode(projectId: string): string {
  return projectGuid(projectId, "upgrade-code");
}

/** A component's GUID, the same in every build of the project (Windows Installer component rules). */
export function msiComponentGuid(projectId: string, component: string): string {
  return projectGuid(projectId, `component:${component}`);
}
