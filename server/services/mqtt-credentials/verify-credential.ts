import { timingSafeEqual } from "node:crypto";
import { eq } from "drizzle-orm";
import { mqttCredentials } from "../../store/sqlite/schema/index.ts";
import { sha256Hex } from "../auth/tokens.ts";
import type { ServiceContext } from "../context.ts";

const HMI_USER = /^hmi:([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

/** Whether an MQTT user name is an HMI credential's (`hmi:<credential id>`). */
export function isHmiUsername(username: string): boolean {
  return HMI_USER.test(username);
}

/** The credential and its project when `password` is the current password of `username`; else null. */
export function verifyMqttCredential(
  ctx: ServiceContext,
  username: string,
  password: string,
): { credentialId: string; projectId: string } | null {
  const id = HMI_USER.exec(username)?.[1];
  if (!id) return null;
  const row = ctx.db
    .select({ projectId: mqttCredentials.projectId, hash: mqttCredentials.passwordHash })
    .from(mqttCredentials)
    .where(eq(mqttCredentials.id, id))
    .get();
  if (!row) return null;
  const given = Buffer.from(sha256Hex(password), "hex");
  const stored = Buffer.from(row.hash, "hex");
  return given.length === stored.length && timingSafeEqual(given, stored)
    ? { credentialId: id, projectId: row.projectId }
    : null;
}

/** Whether the credential still exists (it is deleted when revoked, or with its project). */
export function mqttCredentialExists(ctx: ServiceContext, credentialId: string): boolean {
  return (
    ctx.db
      .select({ id: mqttCredentials.id })
      .from(mqttCredentials)
      .where(eq(mqttCredentials.id, credentialId))
      .get() !== undefined
  );
}
