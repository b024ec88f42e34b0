import type { MqttCredentialRow } from "../../store/rows.ts";

/** An HMI's MQTT login as listed: never the password, nor its hash. */
export type MqttCredentialDto = {
  id: string;
  project_id: string;
  name: string;
  username: string;
  primary_host_id: string | null;
  created_by: string | null;
  created_at: string;
};

/** The MQTT user name of a credential: `hmi:<credential id>`. */
export const hmiUsername = (credentialId: string) => `hmi:${credentialId}`;

export function toMqttCredentialDto(row: MqttCredentialRow): MqttCredentialDto {
  return {
    id: row.id,
    project_id: row.projectId,
    name: row.name,
    username: row.username,
    primary_host_id: row.primaryHostId,
    created_by: row.createdBy,
    created_at: row.createdAt.toISOString(),
  };
}
