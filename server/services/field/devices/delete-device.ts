import { eq } from "drizzle-orm";
import { appendAudit } from "../../../store/sqlite/append-audit.ts";
import { devices } from "../../../store/sqlite/schema/index.ts";
import { configChanged } from "../../agents/config-changed.ts";
import type { AuthContext } from "../../auth/auth-context.ts";
import type { ServiceContext } from "../../context.ts";
import { visibleDevice } from "../lookup.ts";
import { deviceTree } from "../projects/project-tree.ts";

/** Spec §4: "its variables removed" (foreign key cascade); the audit entry keeps them. */
export function deleteDevice(ctx: ServiceContext, auth: AuthContext, id: string): void {
  const now = ctx.clock.now();
  const projectId = ctx.db.transaction((tx) => {
    const current = visibleDevice(tx, auth, id);
    const before = deviceTree(tx, current.device);
    tx.delete(devices).where(eq(devices.id, id)).run();
    appendAudit(tx, {
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
