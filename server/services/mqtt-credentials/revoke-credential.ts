import { notFound } from "../../errors.ts";
import type { AuthContext } from "../auth/auth-context.ts";
import type { ServiceContext } from "../context.ts";
import { visibleProject } from "../field/lookup.ts";
import { toMqttCredentialDto } from "./credential-dto.ts";

/** Deletes an HMI login of the project; the broker drops its open connections at once (the event). */
export async function revokeMqttCredential(
  ctx: ServiceContext,
  auth: AuthContext,
  projectId: string,
  credentialId: string,
): Promise<void> {
  const now = ctx.clock.now();
  await ctx.store.transaction(async (tx) => {
    await visibleProject(tx.field, auth, projectId);
    const row = await tx.mqttCredentials.delete(credentialId, projectId);
    if (!row) throw notFound("mqtt credential");
    await tx.audit.append({
      at: now,
      userId: auth.userId,
      projectId,
      entity: "mqtt_credential",
      entityId: credentialId,
      action: "delete",
      before: toMqttCredentialDto(row),
      after: null,
    });
  });
  ctx.events.emit("mqttCredentialRevoked", { projectId, credentialId });
}
