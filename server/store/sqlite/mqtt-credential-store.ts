import { and, asc, eq, ne } from "drizzle-orm";
import type { MqttCredentialStore } from "../ports/mqtt-credential-store.ts";
import type { MqttCredentialRow, NewMqttCredentialRow } from "../rows.ts";
import { mqttCredentials, projects } from "./schema/index.ts";
import type { SqliteSession } from "./session.ts";

export class SqliteMqttCredentialStore implements MqttCredentialStore {
  readonly #s: SqliteSession;

  constructor(session: SqliteSession) {
    this.#s = session;
  }

  insert(row: NewMqttCredentialRow) {
    return this.#s.gate.run(() => this.#s.db.insert(mqttCredentials).values(row).returning().get());
  }

  ofProject(projectId: string) {
    return this.#s.gate.run(() =>
      this.#s.db
        .select()
        .from(mqttCredentials)
        .where(eq(mqttCredentials.projectId, projectId))
        .orderBy(asc(mqttCredentials.createdAt), asc(mqttCredentials.id))
        .all(),
    );
  }

  get(id: string, projectId: string) {
    return this.#s.gate.run(() =>
      this.#s.db
        .select()
        .from(mqttCredentials)
        .where(and(eq(mqttCredentials.id, id), eq(mqttCredentials.projectId, projectId)))
        .get(),
    );
  }

  update(id: string, projectId: string, patch: Pick<MqttCredentialRow, "name" | "primaryHostId">) {
    return this.#s.gate.run(() =>
      this.#s.db
        .update(mqttCredentials)
        .set({ name: patch.name, primaryHostId: patch.primaryHostId })
        .where(and(eq(mqttCredentials.id, id), eq(mqttCredentials.projectId, projectId)))
        .returning()
        .get(),
    );
  }

  delete(id: string, projectId: string) {
    return this.#s.gate.run(() =>
      this.#s.db
        .delete(mqttCredentials)
        .where(and(eq(mqttCredentials.id, id), eq(mqttCredentials.projectId, projectId)))
        .returning()
        .get(),
    );
  }

  login(id: string) {
    return this.#s.gate.run(() =>
      this.#s.db
        .select({
          projectId: mqttCredentials.projectId,
          passwordHash: mqttCredentials.passwordHash,
          primaryHostId: mqttCredentials.primaryHostId,
        })
        .from(mqttCredentials)
        .where(eq(mqttCredentials.id, id))
        .get(),
    );
  }

  hostIdClaimedBy(hostId: string, exceptProjectId: string) {
    return this.#s.gate.run(() => {
      const asPrimary = this.#s.db
        .select({ id: projects.id })
        .from(projects)
        .where(and(eq(projects.sparkplugPrimaryHostId, hostId), ne(projects.id, exceptProjectId)))
        .all();
      const onLogins = this.#s.db
        .select({ id: mqttCredentials.projectId })
        .from(mqttCredentials)
        .where(and(eq(mqttCredentials.primaryHostId, hostId), ne(mqttCredentials.projectId, exceptProjectId)))
        .all();
      return [...new Set([...asPrimary, ...onLogins].map((r) => r.id))].sort();
    });
  }
}
