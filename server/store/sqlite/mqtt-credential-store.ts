import { and, asc, eq } from "drizzle-orm";
import type { MqttCredentialStore } from "../ports/mqtt-credential-store.ts";
import type { NewMqttCredentialRow } from "../rows.ts";
import { mqttCredentials } from "./schema/index.ts";
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
        .select({ projectId: mqttCredentials.projectId, passwordHash: mqttCredentials.passwordHash })
        .from(mqttCredentials)
        .where(eq(mqttCredentials.id, id))
        .get(),
    );
  }
}
