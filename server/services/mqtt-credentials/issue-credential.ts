import { randomUUID } from "node:crypto";
import { appendAudit } from "../../store/sqlite/append-audit.ts";
import { mqttCredentials } from "../../store/sqlite/schema/index.ts";
import type { AuthContext } from "../auth/auth-context.ts";
import { randomToken, sha256Hex } from "../auth/tokens.ts";
import type { ServiceContext } from "../context.ts";
import { visibleProjectRow } from "../field/lookup.ts";
import { hmiUsername, type MqttCredentialDto, toMqttCredentialDto } from "./credential-dto.ts";

export type IssuedMqttCredential = MqttCredentialDto & { password: string };

/**
 * Issues a read-only MQTT login for an HMI of one project. The password is random (256 bits),
 * returned once, and stored as its SHA-256 only, as agent tokens are: a guessable password is
 * impossible, so a slow hash would add nothing.
 */
export function issueMqttCredential(
  ctx: ServiceContext,
  auth: AuthContext,
  projectId: string,
  name: string,
): IssuedMqttCredential {
  const password = `chm_${randomToken(32)}`;
  const id = randomUUID();
  const now = ctx.clock.now();
  const dto = ctx.db.transaction((tx) => {
    visibleProjectRow(tx, auth, projectId);
    const row = tx
      .insert(mqttCredentials)
      .values({
        id,
        projectId,
        name,
        username: hmiUsername(id),
        passwordHash: sha256Hex(password),
        createdBy: auth.userId,
        createdAt: now,
      })
      .returning()
      .get();
    const dto = toMqttCredentialDto(row);
    appendAudit(tx, {
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
