import type { MqttCredentialRow, NewMqttCredentialRow } from "../rows.ts";

/** HMIs' MQTT logins (one project each; the password stored as its SHA-256 only). */
export type MqttCredentialStore = {
  insert(row: NewMqttCredentialRow): Promise<MqttCredentialRow>;
  /** The project's credentials, oldest first (then by id). */
  ofProject(projectId: string): Promise<MqttCredentialRow[]>;
  /** The credential when it belongs to the project, else undefined. */
  get(id: string, projectId: string): Promise<MqttCredentialRow | undefined>;
  /** Sets the credential's name and primary host id when it belongs to the project: the new row, else undefined. */
  update(
    id: string,
    projectId: string,
    patch: Pick<MqttCredentialRow, "name" | "primaryHostId">,
  ): Promise<MqttCredentialRow | undefined>;
  /** Deletes the credential when it belongs to the project; the deleted row, else undefined. */
  delete(id: string, projectId: string): Promise<MqttCredentialRow | undefined>;
  /**
   * The credential's project, password hash and primary host id (null: none); undefined when it
   * does not exist.
   */
  login(
    id: string,
  ): Promise<{ projectId: string; passwordHash: string; primaryHostId: string | null } | undefined>;
  /**
   * The projects, other than `exceptProjectId`, that claim the Sparkplug host id `hostId`: as
   * their primary host (projects.sparkplug_primary_host_id) or on one of their logins; sorted,
   * each once. Inside a transaction the claim stays decided until it ends: a concurrent
   * transaction asking about the same host id waits for it (PostgreSQL takes a transaction-scoped
   * lock on the id; SQLite has one writer).
   */
  hostIdClaimedBy(hostId: string, exceptProjectId: string): Promise<string[]>;
};
