import { notFound } from "../../../errors.ts";
import { configChanged } from "../../agents/config-changed.ts";
import type { AuthContext } from "../../auth/auth-context.ts";
import type { ServiceContext } from "../../context.ts";
import { visibleDevice } from "../lookup.ts";
import { deviceTree } from "../projects/project-tree.ts";

/** Spec §4: "its variables removed" (foreign key cascade); the audit entry keeps them. */
export async function deleteDevice(ctx: ServiceContext, auth: AuthContext, id: string): Promise<void> {
  const now = ctx.clock.now();
  const projectId = await ctx.store.transaction(async (tx) => {
    const current = await visibleDevice(tx.field, auth, id, "update");
    const before = await deviceTree(tx.field, current.device);
    // Read above, but a concurrent delete may have taken it since: then this one is a 404.
    if (!(await tx.field.deleteDevice(id))) throw notFound("device");
    await tx.audit.append({
      at: now,
      userId: auth.userId,
      projectId: current.projectId,
      entity: "device",
      entityId: id,
      action: "delete",
      before,
      after: null,
    });
    return current.projectId;
  });
  configChanged(ctx, projectId);
}
