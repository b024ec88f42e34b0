import { notFound } from "../../../errors.ts";
import type { AuthContext } from "../../auth/auth-context.ts";
import type { ServiceContext } from "../../context.ts";
import { visibleProject } from "../lookup.ts";
import { projectTree } from "./project-tree.ts";

/**
 * Removes the project and everything under it (spec §4: "project and all its resources removed").
 * The foreign keys cascade (assets, devices, variables, telemetry series and through their trigger
 * raw rows and rollups, rules, alarms, records, reports, deployments, logs, billing); the audit
 * entry keeps the whole configuration tree that was removed.
 */
export async function deleteProject(ctx: ServiceContext, auth: AuthContext, id: string): Promise<void> {
  const now = ctx.clock.now();
  await ctx.store.transaction(async (tx) => {
    const before = await projectTree(tx.field, await visibleProject(tx.field, auth, id));
    // Read above, but a concurrent delete may have taken it since: then this one is a 404.
    if (!(await tx.field.deleteProject(id))) throw notFound("project");
    await tx.audit.append({
      at: now,
      userId: auth.userId,
      projectId: id,
      entity: "project",
      entityId: id,
      action: "delete",
      before,
      after: null,
    });
  });
  // The project's agent token died with it: live MQTT sessions that used it must be dropped.
  ctx.events.emit("agentTokenRotated", { projectId: id });
  ctx.events.emit("projectDeleted", { projectId: id });
}
