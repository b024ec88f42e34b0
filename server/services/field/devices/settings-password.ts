import { hkdfSync } from "node:crypto";
import { open, seal } from "../../auth/secret-box.ts";
import type { Keys } from "../../context.ts";

/*
 * The OPC UA password of a device's settings, sealed at rest with AES-256-GCM like the TOTP
 * secrets (spec §5 rule 8), under a key of its own: HKDF-SHA256 (RFC 5869) of
 * TOTP_SECRET_ENCRYPTION_KEY with a purpose label, so neither secret can be opened as the other.
 * The device id is bound as associated data: a sealed password copied to another row fails to open.
 */

const PURPOSE = "caudal/device-settings/opc-ua-password/v1";

function passwordKey(keys: Keys): Buffer {
  return Buffer.from(hkdfSync("sha256", keys.totp, Buffer.alloc(0), PURPOSE, 32));
}

export function sealSettingsPassword(keys: Keys, deviceId: string, password: string): Buffer {
  return seal(passwordKey(keys), password, `device:${deviceId}`);
}

/** Only the deployment builder opens it: the plaintext goes into the agent's configuration, nowhere else. */
export function openSettingsPassword(keys: Keys, deviceId: string, sealed: Buffer): string {
  return open(passwordKey(keys), sealed, `device:${deviceId}`);
}
