import { AppError } from "../../errors.ts";
import type { MqttCredentialStore } from "../../store/ports/mqtt-credential-store.ts";

/**
 * A Sparkplug host id belongs to one project. spBv1.0/STATE/{host_id} has no group level, so
 * every project naming the id would read one retained STATE, and a login of one could speak
 * for the host of another: a project names a host id as its primary host, or gives it to its
 * HMI logins, only when no other project does either (409 otherwise).
 */
export async function assertHostIdFree(
  credentials: MqttCredentialStore,
  hostId: string,
  projectId: string,
  field: string,
): Promise<void> {
  const others = await credentials.hostIdClaimedBy(hostId, projectId);
  if (others.length === 0) return;
  throw new AppError(
    "Conflict",
    `${field}: the Sparkplug host id "${hostId}" belongs to another project (as its primary host or an HMI login's): choose another, or none`,
    { extra: { field } },
  );
}
