import { and, eq } from "drizzle-orm";
import { notFound } from "../../errors.ts";
import { appendAudit } from "../../store/sqlite/append-audit.ts";
import { mqttCredentials } from "../../store/sqlite/schema/index.ts";
import type { AuthContext } from "../auth/auth-context.ts";
import type { ServiceContext } from "../context.ts";
import { visibleProjectRow } from "../field/lookup.ts";
import { toMqttCredentialDto } from "./credential-dto.ts";

/** Deletes an HMI login of the project; the broker drops its open connections at once (the event). */
export function revokeMqttCredential(
  ctx: ServiceContext,
  auth: AuthContext,
  projectId: string,
  credentialId: string,
): void {
  const now = ctx.clock.now();
  ctx.db.transaction((tx) => {
    visibleProjectRow(tx, auth, projectId);
    const row = tx
      .delete(mqttCredentials)
      .where(and(eq(mqttCredentials.id, credentialId), eq(mqttCredentials.projectId, projectId)))
      .returning()
      .get();
    if (!row) throw notFound("mqtt credential");
    appendAudit(tx, {
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
