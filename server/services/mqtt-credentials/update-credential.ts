import { notFound } from "../../errors.ts";
import type { AuthContext } from "../auth/auth-context.ts";
import type { ServiceContext } from "../context.ts";
import { visibleProject } from "../field/lookup.ts";
import { type MqttCredentialDto, toMqttCredentialDto } from "./credential-dto.ts";
import { assertHostIdFree } from "./host-ids.ts";
import type { MqttCredentialInput } from "./issue-credential.ts";

/**
 * Renames an HMI login and, when given, changes the host id whose STATE it may publish (omitted: kept).
 * A changed host id ends the login's open connections (the event): each connection holds the id it
 * logged in with, and the HMI connects again under the new one.
 */
export async function updateMqttCredential(
  ctx: ServiceContext,
  auth: AuthContext,
  projectId: string,
  credentialId: string,
  input: MqttCredentialInput,
): Promise<MqttCredentialDto> {
  const now = ctx.clock.now();
  const { before, after } = await ctx.store.transaction(async (tx) => {
    await visibleProject(tx.field, auth, projectId);
    const current = await tx.mqttCredentials.get(credentialId, projectId);
    if (!current) throw notFound("mqtt credential");
    const name = input.name.trim();
    const primaryHostId = input.primary_host_id === undefined ? current.primaryHostId : input.primary_host_id;
    if (primaryHostId !== null && primaryHostId !== current.primaryHostId)
      await assertHostIdFree(tx.mqttCredentials, primaryHostId, projectId, "primary_host_id");
    const row = await tx.mqttCredentials.update(credentialId, projectId, { name, primaryHostId });
    if (!row) throw notFound("mqtt credential");
    const before = toMqttCredentialDto(current);
    const after = toMqttCredentialDto(row);
    await tx.audit.append({
      at: now,
      userId: auth.userId,
      projectId,
      entity: "mqtt_credential",
      entityId: credentialId,
      action: "update",
      before,
      after,
    });
    return { before, after };
  });
  if (before.primary_host_id !== after.primary_host_id)
    ctx.events.emit("mqttCredentialChanged", { projectId, credentialId });
  return after;
}
