import type { ServiceContext } from "../context.ts";
import { hasPendingChanges, latestDeployment } from "./deploy.ts";

/** Where a project's configuration stands against what was last deployed to its agent. */
export type ConfigStatusDto = {
  deployed_version: number | null;
  deployed_hash: string | null;
  /** The current configuration hash differs from the deployed one (the same configHash a deployment records). */
  pending_changes: boolean;
};

export function configStatusOf(ctx: ServiceContext, projectId: string): ConfigStatusDto {
  return ctx.db.transaction((tx) => {
    const last = latestDeployment(tx, projectId);
    return {
      deployed_version: last?.version ?? null,
      deployed_hash: last?.configHash ?? null,
      pending_changes: hasPendingChanges(ctx, projectId, last?.configHash ?? null),
    };
  });
}
