import type { AgentRuntimeConfig } from "../../../shared/mqtt/agent-config.ts";
import type { Keys } from "../context.ts";
import { openSettingsPassword, sealSettingsPassword } from "../field/devices/settings-password.ts";

/** Where a stored deployment keeps a device's sealed OPC UA password instead of `password`. */
const SEALED = "password_sealed";

/**
 * A deployment as stored: each OPC UA password sealed (settings-password.ts: AES-256-GCM, bound to
 * its device), so the deployments table holds no secret in the clear. The content hash is taken
 * before, over the configuration the agent receives.
 */
export function sealConfigSecrets(keys: Keys, config: AgentRuntimeConfig): AgentRuntimeConfig {
  return {
    ...config,
    devices: config.devices.map((d) => {
      const password = d.settings?.password;
      if (typeof password !== "string") return d;
      const sealed = sealSettingsPassword(keys, d.id, password).toString("base64");
      return { ...d, settings: { ...d.settings, password: null, [SEALED]: sealed } };
    }),
  };
}

/** The configuration the agent receives, from a stored deployment: passwords opened. */
export function openConfigSecrets(keys: Keys, config: AgentRuntimeConfig): AgentRuntimeConfig {
  return {
    ...config,
    devices: config.devices.map((d) => {
      const sealed = d.settings?.[SEALED];
      if (typeof sealed !== "string") return d;
      const { [SEALED]: _, ...settings } = d.settings ?? {};
      return {
        ...d,
        settings: { ...settings, password: openSettingsPassword(keys, d.id, Buffer.from(sealed, "base64")) },
      };
    }),
  };
}
