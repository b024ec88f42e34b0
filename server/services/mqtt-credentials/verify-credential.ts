import { timingSafeEqual } from "node:crypto";
import { sha256Hex } from "../auth/tokens.ts";
import type { ServiceContext } from "../context.ts";

const HMI_USER = /^hmi:([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

/** Whether an MQTT user name is an HMI credential's (`hmi:<credential id>`). */
export function isHmiUsername(username: string): boolean {
  return HMI_USER.test(username);
}

/** The HMI login as it authenticates: its credential, project and the host id whose STATE it may publish. */
export type HmiLogin = { credentialId: string; projectId: string; primaryHostId: string | null };

/** The credential, its project and host id when `password` is the current password of `username`; else null. */
export async function verifyMqttCredential(
  ctx: ServiceContext,
  username: string,
  password: string,
): Promise<HmiLogin | null> {
  const id = HMI_USER.exec(username)?.[1];
  if (!id) return null;
  const row = await ctx.store.mqttCredentials.login(id);
  if (!row) return null;
  const given = Buffer.from(sha256Hex(password), "hex");
  const stored = Buffer.from(row.passwordHash, "hex");
  return given.length === stored.length && timingSafeEqual(given, stored)
    ? { credentialId: id, projectId: row.projectId, primaryHostId: row.primaryHostId }
    : null;
}

/** Whether the credential still exists (it is deleted when revoked, or with its project). */
export async function mqttCredentialExists(ctx: ServiceContext, credentialId: string): Promise<boolean> {
  return (await ctx.store.mqttCredentials.login(credentialId)) !== undefined;
}
