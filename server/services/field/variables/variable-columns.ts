import type { Protocol } from "../../../../shared/field/data-types.ts";
import { describeProblems, variableProblems } from "../../../../shared/field/protocol-config.ts";
import { AppError, badRequest } from "../../../errors.ts";
import type { FieldStore } from "../../../store/ports/field-store.ts";
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
 * The variable's addressing under its device's protocol (shared/field/protocol-config.ts): a 400
 * naming the field. An address may be left for later (spec §2), but never be wrong.
 */
export function assertAddressing(protocol: Protocol, columns: ReturnType<typeof variableColumns>): void {
  const problems = variableProblems(
    protocol,
    {
      data_type: columns.dataType,
      address: columns.address,
      register_address: columns.registerAddress,
      register_kind: columns.registerKind,
    },
    { requireAddress: false },
  );
  if (problems.length > 0) throw badRequest(describeProblems(problems));
}

/**
 * An alias names the reading the agent publishes, and telemetry is keyed by (asset, alias): two
 * devices of one asset publishing the same alias would write into one series. So an alias is
 * unique within its asset (409), which also makes it unique within its device (the unique index
 * variables_device_alias_uq backs that). Checked inside the write's transaction.
 */
export async function assertAliasFree(
  field: FieldStore,
  device: { id: string; assetId: string },
  alias: string,
  exceptId?: string,
): Promise<void> {
  const clash = await field.variableWithAlias(device.assetId, alias, exceptId);
  if (clash) {
    const where = clash.deviceId === device.id ? "this device" : "another device of the same asset";
    throw new AppError("Conflict", `alias "${alias}" is already used by a variable of ${where}`);
  }
}
