import { notFound } from "../../../errors.ts";
import { configChanged } from "../../agents/config-changed.ts";
import type { AuthContext } from "../../auth/auth-context.ts";
import type { ServiceContext } from "../../context.ts";
import { toVariableDto, type VariableDto } from "../dto.ts";
import type { VariableInput } from "../inputs.ts";
import { visibleVariable } from "../lookup.ts";
import { assertAddressing, assertAliasFree, variableColumns } from "./variable-columns.ts";

/** PUT semantics: the body replaces every writable field; omitted extensions reset to their defaults. */
export async function replaceVariable(
  ctx: ServiceContext,
  auth: AuthContext,
  id: string,
  input: VariableInput,
): Promise<VariableDto> {
  const columns = variableColumns(input);
  const now = ctx.clock.now();
  const { result, projectId } = await ctx.store.transaction(async (tx) => {
    const current = await visibleVariable(tx.field, auth, id);
    assertAddressing(current.protocol, columns);
    await assertAliasFree(
      tx.field,
      { id: current.variable.deviceId, assetId: current.assetId },
      columns.alias,
      id,
    );
    const row = await tx.field.updateVariable(id, { ...columns, updatedAt: now });
    if (!row) throw notFound("variable");
    const after = toVariableDto(row);
    await tx.audit.append({
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
