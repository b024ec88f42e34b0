import { and, asc, eq } from "drizzle-orm";
import type { MqttCredentialStore } from "../ports/mqtt-credential-store.ts";
import type { NewMqttCredentialRow } from "../rows.ts";
import { mqttCredentials } from "./schema/index.ts";
import type { PgSession } from "./session.ts";

export class PostgresMqttCredentialStore implements MqttCredentialStore {
  readonly #s: PgSession;

  constructor(session: PgSession) {
    this.#s = session;
  }

  async insert(row: NewMqttCredentialRow) {
    const [inserted] = await this.#s.executor().insert(mqttCredentials).values(row).returning();
    if (!inserted) throw new Error("INSERT … RETURNING returned no credential row");
    return inserted;
  }

  async ofProject(projectId: string) {
    return this.#s
      .executor()
      .select()
      .from(mqttCredentials)
      .where(eq(mqttCredentials.projectId, projectId))
      .orderBy(asc(mqttCredentials.createdAt), asc(mqttCredentials.id));
  }

  async delete(id: string, projectId: string) {
    const [deleted] = await this.#s
      .executor()
      .delete(mqttCredentials)
      .where(and(eq(mqttCredentials.id, id), eq(mqttCredentials.projectId, projectId)))
      .returning();
    return deleted;
  }

  async login(id: string) {
    const [row] = await this.#s
      .executor()
      .select({ projectId: mqttCredentials.projectId, passwordHash: mqttCredentials.passwordHash })
      .from(mqttCredentials)
      .where(eq(mqttCredentials.id, id))
      .limit(1);
    return row;
  }
}
