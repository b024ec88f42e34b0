import type { ServiceContext } from "../context.ts";
import { hasPendingChanges } from "./deploy.ts";

/** Where a project's configuration stands against what was last deployed to its agent. */
export type ConfigStatusDto = {
  deployed_version: number | null;
  deployed_hash: string | null;
  /** The current configuration hash differs from the deployed one (the same configHash a deployment records). */
  pending_changes: boolean;
};

/** Read in one transaction, so the deployment and the configuration compared are one snapshot. */
export function configStatusOf(ctx: ServiceContext, projectId: string): Promise<ConfigStatusDto> {
  return ctx.store.transaction(async (tx) => {
    const last = await tx.agents.latestDeployment(projectId);
    return {
      deployed_version: last?.version ?? null,
      deployed_hash: last?.configHash ?? null,
      pending_changes: await hasPendingChanges(ctx, tx.agents, projectId, last?.configHash ?? null),
    };
  });
}
