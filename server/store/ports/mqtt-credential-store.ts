import type { MqttCredentialRow, NewMqttCredentialRow } from "../rows.ts";

/** HMIs' MQTT logins (one project each; the password stored as its SHA-256 only). */
export type MqttCredentialStore = {
  insert(row: NewMqttCredentialRow): Promise<MqttCredentialRow>;
  /** The project's credentials, oldest first (then by id). */
  ofProject(projectId: string): Promise<MqttCredentialRow[]>;
  /** Deletes the credential when it belongs to the project; the deleted row, else undefined. */
  delete(id: string, projectId: string): Promise<MqttCredentialRow | undefined>;
  /** The credential's project and password hash; undefined when it does not exist. */
  login(id: string): Promise<{ projectId: string; passwordHash: string } | undefined>;
};
