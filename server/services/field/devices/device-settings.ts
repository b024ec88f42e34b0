import type { Protocol } from "../../../../shared/field/data-types.ts";
import {
  DEFAULT_PORTS,
  describeProblems,
  isModbus,
  parseDeviceSettings,
} from "../../../../shared/field/protocol-config.ts";
import { badRequest } from "../../../errors.ts";
import type { DeviceRow } from "../../../store/rows.ts";
import type { Keys } from "../../context.ts";
import type { DeviceInput } from "../inputs.ts";
import { sealSettingsPassword } from "./settings-password.ts";

/** The effective settings of a stored device (defaults applied to rows written before settings existed). */
export function storedSettings(protocol: Protocol, stored: unknown): Record<string, unknown> {
  const parsed = parseDeviceSettings(protocol, stored);
  return parsed.ok ? parsed.settings : {};
}

/**
 * What a create or replace stores for the protocol: the port (the protocol's own by default), the
 * effective settings (null for Modbus, which has none) and the sealed OPC UA password.
 * Password rules: omitted keeps the stored one (while the device stays OPC UA), null clears it,
 * and it goes when the username does.
 */
export function settingsColumns(keys: Keys, deviceId: string, input: DeviceInput, current: DeviceRow | null) {
  const parsed = parseDeviceSettings(input.protocol, input.settings);
  if (!parsed.ok) throw badRequest(describeProblems(parsed.problems));
  const port = input.port ?? DEFAULT_PORTS[input.protocol] ?? null;
  if (isModbus(input.protocol)) return { port, settings: null, settingsPasswordEncrypted: null };
  if (!("security_mode" in parsed.settings)) {
    return { port, settings: parsed.settings, settingsPasswordEncrypted: null };
  }
  const { password, ...settings } = parsed.settings;
  let sealed: Buffer | null =
    current?.protocol === "opc_ua" ? (current.settingsPasswordEncrypted ?? null) : null;
  if (password === null) sealed = null;
  else if (typeof password === "string") sealed = sealSettingsPassword(keys, deviceId, password);
  if (settings.username === null) sealed = null;
  return { port, settings, settingsPasswordEncrypted: sealed };
}
