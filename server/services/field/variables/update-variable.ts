import { eq } from "drizzle-orm";
import { notFound } from "../../../errors.ts";
import { appendAudit } from "../../../store/sqlite/append-audit.ts";
import { variables } from "../../../store/sqlite/schema/index.ts";
import { configChanged } from "../../agents/config-changed.ts";
import type { AuthContext } from "../../auth/auth-context.ts";
import type { ServiceContext } from "../../context.ts";
import { toVariableDto, type VariableDto } from "../dto.ts";
import type { VariableInput } from "../inputs.ts";
import { visibleVariable } from "../lookup.ts";
import { assertAddressing, assertAliasFree, variableColumns } from "./variable-columns.ts";

/** PUT semantics: the body replaces every writable field; omitted extensions reset to their defaults. */
export function replaceVariable(
  ctx: ServiceContext,
  auth: AuthContext,
  id: string,
  input: VariableInput,
): VariableDto {
  const columns = variableColumns(input);
  const now = ctx.clock.now();
  const { result, projectId } = ctx.db.transaction((tx) => {
    const current = visibleVariable(tx, auth, id);
    assertAddressing(current.protocol, columns);
    assertAliasFree(tx, current.variable.deviceId, columns.alias, id);
    const row = tx
      .update(variables)
      .set({ ...columns, updatedAt: now })
      .where(eq(variables.id, id))
      .returning()
      .get();
    if (!row) throw notFound("variable");
    const after = toVariableDto(row);
    appendAudit(tx, {
      at: now,
      userId: auth.userId,
      projectId: current.projectId,
      entity: "variable",
      entityId: id,
      action: "update",
      before: toVariableDto(current.variable),
      after,
    });
    return { result: after, projectId: current.projectId };
  });
  configChanged(ctx, projectId);
  return result;
}
