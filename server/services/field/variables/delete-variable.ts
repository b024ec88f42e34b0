import { notFound } from "../../../errors.ts";
import { configChanged } from "../../agents/config-changed.ts";
import type { AuthContext } from "../../auth/auth-context.ts";
import type { ServiceContext } from "../../context.ts";
import { toVariableDto } from "../dto.ts";
import { visibleVariable } from "../lookup.ts";

export async function deleteVariable(ctx: ServiceContext, auth: AuthContext, id: string): Promise<void> {
  const now = ctx.clock.now();
  const projectId = await ctx.store.transaction(async (tx) => {
    const current = await visibleVariable(tx.field, auth, id);
    // Read above, but a concurrent delete may have taken it since: then this one is a 404.
    if (!(await tx.field.deleteVariable(id))) throw notFound("variable");
    await tx.audit.append({
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
