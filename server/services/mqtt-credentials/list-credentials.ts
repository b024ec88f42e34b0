import { asc, eq } from "drizzle-orm";
import { mqttCredentials } from "../../store/sqlite/schema/index.ts";
import type { AuthContext } from "../auth/auth-context.ts";
import type { ServiceContext } from "../context.ts";
import { visibleProjectRow } from "../field/lookup.ts";
import { type MqttCredentialDto, toMqttCredentialDto } from "./credential-dto.ts";

/** A project's HMI logins, oldest first, without passwords. */
export function listMqttCredentials(
  ctx: ServiceContext,
  auth: AuthContext,
  projectId: string,
): MqttCredentialDto[] {
  visibleProjectRow(ctx.db, auth, projectId);
  return ctx.db
    .select()
    .from(mqttCredentials)
    .where(eq(mqttCredentials.projectId, projectId))
    .orderBy(asc(mqttCredentials.createdAt), asc(mqttCredentials.id))
    .all()
    .map(toMqttCredentialDto);
}
