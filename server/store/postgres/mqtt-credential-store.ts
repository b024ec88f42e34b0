import { and, asc, eq, ne, sql } from "drizzle-orm";
import type { MqttCredentialStore } from "../ports/mqtt-credential-store.ts";
import type { MqttCredentialRow, NewMqttCredentialRow } from "../rows.ts";
import { mqttCredentials, projects } from "./schema/index.ts";
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

  async get(id: string, projectId: string) {
    const [row] = await this.#s
      .executor()
      .select()
      .from(mqttCredentials)
      .where(and(eq(mqttCredentials.id, id), eq(mqttCredentials.projectId, projectId)))
      .limit(1);
    return row;
  }

  async update(id: string, projectId: string, patch: Pick<MqttCredentialRow, "name" | "primaryHostId">) {
    const [row] = await this.#s
      .executor()
      .update(mqttCredentials)
      .set({ name: patch.name, primaryHostId: patch.primaryHostId })
      .where(and(eq(mqttCredentials.id, id), eq(mqttCredentials.projectId, projectId)))
      .returning();
    return row;
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
      .select({
        projectId: mqttCredentials.projectId,
        passwordHash: mqttCredentials.passwordHash,
        primaryHostId: mqttCredentials.primaryHostId,
      })
      .from(mqttCredentials)
      .where(eq(mqttCredentials.id, id))
      .limit(1);
    return row;
  }

  async hostIdClaimedBy(hostId: string, exceptProjectId: string) {
    const executor = this.#s.executor();
    // Until the transaction ends: two projects claiming one host id at once, at READ COMMITTED,
    // would each read no claim and both write theirs. No row exists to lock.
    if (this.#s.inTransaction())
      await executor.execute(
        sql`SELECT pg_advisory_xact_lock(hashtext('caudal_sparkplug_host_ids'), hashtext(${hostId}))`,
      );
    const asPrimary = await executor
      .select({ id: projects.id })
      .from(projects)
      .where(and(eq(projects.sparkplugPrimaryHostId, hostId), ne(projects.id, exceptProjectId)));
    const onLogins = await executor
      .select({ id: mqttCredentials.projectId })
      .from(mqttCredentials)
      .where(and(eq(mqttCredentials.primaryHostId, hostId), ne(mqttCredentials.projectId, exceptProjectId)));
    return [...new Set([...asPrimary, ...onLogins].map((r) => r.id))].sort();
  }
}
