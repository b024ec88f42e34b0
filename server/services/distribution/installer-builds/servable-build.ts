import { existsSync } from "node:fs";
import { join } from "node:path";
import type { StorePorts } from "../../../store/store.ts";
import { enrollmentCodeStatusById } from "../../agents/enrollment-codes.ts";
import type { ServiceContext } from "../../context.ts";
import type { InstallerBuildRow } from "./build-dto.ts";
import { installersDir } from "./installer-files.ts";

/**
 * A cached MSI is served only while its enrollment code has at least this long to live: one
 * downloaded now is installed later, perhaps days later at a remote site.
 */
export const MSI_CODE_MIN_REMAINING_MS = 24 * 3_600_000;

/**
 * The project's latest built MSI made from these inputs, if it may still be handed out: its file is
 * kept and its enrollment code is active (not used, expired or revoked) for a while yet.
 */
export async function servableBuild(
  ctx: ServiceContext,
  tx: Pick<StorePorts, "installerBuilds" | "agents">,
  projectId: string,
  key: { agentVersion: string; inputsSha256: string },
): Promise<InstallerBuildRow | null> {
  const row = await tx.installerBuilds.latestBuilt(projectId, key);
  if (!row?.file || !row.enrollmentCodeId) return null;
  const code = await enrollmentCodeStatusById(ctx, tx.agents, row.enrollmentCodeId);
  if (code?.status !== "active") return null;
  if (code.expiresAt.getTime() - ctx.clock.now().getTime() < MSI_CODE_MIN_REMAINING_MS) return null;
  return existsSync(join(installersDir(ctx), row.file)) ? row : null;
}
