import { eq } from "drizzle-orm";
import { appendAudit } from "../../../store/sqlite/append-audit.ts";
import { variables } from "../../../store/sqlite/schema/index.ts";
import { configChanged } from "../../agents/config-changed.ts";
import type { AuthContext } from "../../auth/auth-context.ts";
import type { ServiceContext } from "../../context.ts";
import { toVariableDto } from "../dto.ts";
import { visibleVariable } from "../lookup.ts";

export function deleteVariable(ctx: ServiceContext, auth: AuthContext, id: string): void {
  const now = ctx.clock.now();
  const projectId = ctx.db.transaction((tx) => {
    const current = visibleVariable(tx, auth, id);
    tx.delete(variables).where(eq(variables.id, id)).run();
    appendAudit(tx, {
      at: now,
      userId: auth.userId,
      projectId: current.projectId,
      entity: "variable",
      entityId: id,
      action: "delete",
      before: toVariableDto(current.variable),
      after: null,
    });
    return current.projectId;
  });
  configChanged(ctx, projectId);
}
