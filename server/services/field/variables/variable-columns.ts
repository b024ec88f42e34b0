import { and, eq, ne } from "drizzle-orm";
import { variables } from "../../../db/schema/index.ts";
import { AppError } from "../../../http/errors.ts";
import type { DbOrTx } from "../../audit/append-audit.ts";
import { optionalText, type VariableInput } from "../inputs.ts";

export function variableColumns(input: VariableInput) {
  return {
    alias: input.alias.trim(),
    dataType: input.data_type,
    registerAddress: input.register_address ?? null,
    unit: optionalText(input.unit),
    scaleFactor: input.scale_factor ?? null,
    enabled: input.enabled ?? true,
    address: optionalText(input.address),
    registerKind: input.register_kind ?? "holding",
    wordOrder: input.word_order ?? "ABCD",
    pollIntervalMs: input.poll_interval_ms ?? 1000,
    deadband: input.deadband ?? 0,
  };
}

/**
 * An alias names the reading the agent publishes, so it is unique within its device (409).
 * Checked inside the write's transaction; the unique index variables_device_alias_uq backs it.
 */
export function assertAliasFree(db: DbOrTx, deviceId: string, alias: string, exceptId?: string): void {
  const sameAlias = and(eq(variables.deviceId, deviceId), eq(variables.alias, alias));
  const clash = db
    .select({ id: variables.id })
    .from(variables)
    .where(exceptId ? and(sameAlias, ne(variables.id, exceptId)) : sameAlias)
    .get();
  if (clash)
    throw new AppError("Conflict", `alias "${alias}" is already used by another variable of this device`);
}
