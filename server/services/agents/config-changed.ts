import type { ServiceContext } from "../context.ts";

/**
 * Tells, after commit, that a project's devices, variables or alert rules changed: its agent
 * configuration may differ from the deployed one (services/agents/auto-deploy.ts listens).
 */
export function configChanged(ctx: ServiceContext, projectId: string): void {
  ctx.events.emit("configChanged", { projectId });
}
