import type { AuthContext } from "../auth/auth-context.ts";
import type { ServiceContext } from "../context.ts";
import { visibleProject } from "../field/lookup.ts";
import { type MqttCredentialDto, toMqttCredentialDto } from "./credential-dto.ts";

/** A project's HMI logins, oldest first, without passwords. */
export async function listMqttCredentials(
  ctx: ServiceContext,
  auth: AuthContext,
  projectId: string,
): Promise<MqttCredentialDto[]> {
  await visibleProject(ctx.store.field, auth, projectId);
  return (await ctx.store.mqttCredentials.ofProject(projectId)).map(toMqttCredentialDto);
}
