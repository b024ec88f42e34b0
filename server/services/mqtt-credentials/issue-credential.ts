import { randomUUID } from "node:crypto";
import type { AuthContext } from "../auth/auth-context.ts";
import { randomToken, sha256Hex } from "../auth/tokens.ts";
import type { ServiceContext } from "../context.ts";
import { visibleProject } from "../field/lookup.ts";
import { hmiUsername, type MqttCredentialDto, toMqttCredentialDto } from "./credential-dto.ts";
import { assertHostIdFree } from "./host-ids.ts";

export type IssuedMqttCredential = MqttCredentialDto & { password: string };

/** A credential's writable fields (the body of its create and update). */
export type MqttCredentialInput = {
  name: string;
  /** The Sparkplug host id whose STATE the login may publish; null or omitted: none. */
  primary_host_id?: string | null | undefined;
};

/**
 * Issues a read-only MQTT login for an HMI of one project. The password is random (256 bits),
 * returned once, and stored as its SHA-256 only, as agent tokens are: a guessable password is
 * impossible, so a slow hash would add nothing. A primary host id no other project claims
 * (host-ids.ts) lets the login publish that host's STATE.
 */
export async function issueMqttCredential(
  ctx: ServiceContext,
  auth: AuthContext,
  projectId: string,
  input: MqttCredentialInput,
): Promise<IssuedMqttCredential> {
  const password = `chm_${randomToken(32)}`;
  const id = randomUUID();
  const now = ctx.clock.now();
  const dto = await ctx.store.transaction(async (tx) => {
    await visibleProject(tx.field, auth, projectId);
    const primaryHostId = input.primary_host_id ?? null;
    if (primaryHostId !== null)
      await assertHostIdFree(tx.mqttCredentials, primaryHostId, projectId, "primary_host_id");
    const row = await tx.mqttCredentials.insert({
      id,
      projectId,
      name: input.name.trim(),
      username: hmiUsername(id),
      passwordHash: sha256Hex(password),
      primaryHostId,
      createdBy: auth.userId,
      createdAt: now,
    });
    const dto = toMqttCredentialDto(row);
    await tx.audit.append({
      at: now,
      userId: auth.userId,
      projectId,
      entity: "mqtt_credential",
      entityId: id,
      action: "create",
      before: null,
      // The password is never recorded, not even hashed.
      after: dto,
    });
    return dto;
  });
  return { ...dto, password };
}
