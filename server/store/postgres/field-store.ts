import { and, asc, eq, inArray, like, ne, type SQL, sql } from "drizzle-orm";
import type { FieldStore, RowLock } from "../ports/field-store.ts";
import type { NewAssetRow, NewDeviceRow, NewProjectRow, NewVariableRow } from "../rows.ts";
import {
  assets,
  devices,
  meterReadings,
  projects,
  userProjects,
  variables,
  wellTests,
} from "./schema/index.ts";
import type { PgExecutor, PgSession } from "./session.ts";

/** The one row an INSERT … RETURNING gives back. */
function inserted<T>(rows: T[], what: string): T {
  const [row] = rows;
  if (!row) throw new Error(`INSERT … RETURNING returned no ${what} row`);
  return row;
}

/** A LIKE pattern matching `text` literally (backslash is PostgreSQL's default escape). */
const literalLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * The project slug lock: a transaction-scoped advisory lock (released at COMMIT or ROLLBACK) taken
 * by the slug reads that decide a transaction's slug, so that two projects created or renamed at
 * once never pick the same one (the second reads, at READ COMMITTED, what the first committed;
 * SQLite's single writer does the same). A row lock cannot: the slug's row does not exist yet.
 */
const lockSlugs = (executor: PgExecutor) =>
  executor.execute(sql`SELECT pg_advisory_xact_lock(hashtext('caudal_project_slugs'))`);

/**
 * The alias lock of one asset, taken by the alias check of a transaction (variableWithAlias) until
 * it ends. The rule is per asset but the unique index per device, so without it two devices of
 * one asset could both take an alias at READ COMMITTED, and nothing would stop them.
 */
const lockAliases = (executor: PgExecutor, assetId: string) =>
  executor.execute(
    sql`SELECT pg_advisory_xact_lock(hashtext('caudal_variable_aliases'), hashtext(${assetId}))`,
  );

export class PostgresFieldStore implements FieldStore {
  readonly #s: PgSession;

  constructor(session: PgSession) {
    this.#s = session;
  }

  async projects(ids?: readonly string[]) {
    if (ids?.length === 0) return [];
    const query = this.#s.executor().select().from(projects);
    return (ids ? query.where(inArray(projects.id, [...ids])) : query).orderBy(
      asc(projects.name),
      asc(projects.id),
    );
  }

  async activeProjects(ids?: readonly string[]) {
    if (ids?.length === 0) return [];
    return this.#s
      .executor()
      .select()
      .from(projects)
      .where(and(ids && inArray(projects.id, [...ids]), eq(projects.isActive, true)))
      .orderBy(asc(projects.name), asc(projects.id));
  }

  async project(id: string) {
    const [row] = await this.#s.executor().select().from(projects).where(eq(projects.id, id)).limit(1);
    return row;
  }

  async projectIdWithSlug(slug: string, except?: string) {
    const bySlug = eq(projects.slug, slug);
    const executor = this.#s.executor();
    if (this.#s.inTransaction()) await lockSlugs(executor);
    const [row] = await executor
      .select({ id: projects.id })
      .from(projects)
      .where(except === undefined ? bySlug : and(bySlug, ne(projects.id, except)))
      .limit(1);
    return row?.id;
  }

  async projectSlugsFrom(prefix: string) {
    // Case-sensitive, and in the C locale a prefix LIKE can use the slug's unique index.
    const executor = this.#s.executor();
    if (this.#s.inTransaction()) await lockSlugs(executor);
    const rows = await executor
      .select({ slug: projects.slug })
      .from(projects)
      .where(like(projects.slug, `${literalLike(prefix)}%`));
    return rows.map((r) => r.slug);
  }

  async insertProject(row: NewProjectRow) {
    return inserted(await this.#s.executor().insert(projects).values(row).returning(), "project");
  }

  async updateProject(id: string, set: Partial<Omit<NewProjectRow, "id">>) {
    const [row] = await this.#s.executor().update(projects).set(set).where(eq(projects.id, id)).returning();
    return row;
  }

  async deleteProject(id: string) {
    const gone = await this.#s
      .executor()
      .delete(projects)
      .where(eq(projects.id, id))
      .returning({ id: projects.id });
    return gone.length > 0;
  }

  async assignProject(userId: string, projectId: string) {
    await this.#s.executor().insert(userProjects).values({ userId, projectId });
  }

  async asset(id: string, lock?: RowLock) {
    const query = this.#s.executor().select().from(assets).where(eq(assets.id, id)).limit(1);
    const [row] = lock && this.#s.inTransaction() ? await query.for(lock) : await query;
    return row;
  }

  async assetsOf(projectId: string) {
    return this.#s
      .executor()
      .select()
      .from(assets)
      .where(eq(assets.projectId, projectId))
      .orderBy(asc(assets.name), asc(assets.id));
  }

  async tanks(projectIds?: readonly string[]) {
    if (projectIds?.length === 0) return [];
    const conditions: SQL[] = [eq(assets.assetType, "tank")];
    if (projectIds) conditions.push(inArray(assets.projectId, [...projectIds]));
    return this.#s
      .executor()
      .select()
      .from(assets)
      .where(and(...conditions))
      .orderBy(asc(assets.name), asc(assets.id));
  }

  async insertAsset(row: NewAssetRow) {
    return inserted(await this.#s.executor().insert(assets).values(row).returning(), "asset");
  }

  async updateAsset(id: string, set: Partial<Omit<NewAssetRow, "id" | "projectId">>) {
    const [row] = await this.#s.executor().update(assets).set(set).where(eq(assets.id, id)).returning();
    return row;
  }

  async deleteAsset(id: string) {
    const gone = await this.#s
      .executor()
      .delete(assets)
      .where(eq(assets.id, id))
      .returning({ id: assets.id });
    return gone.length > 0;
  }

  async assetRecordCounts(assetId: string) {
    const executor = this.#s.executor();
    if (this.#s.inTransaction()) {
      // The lock first, the counts in a statement of their own: at READ COMMITTED it sees a record
      // committed while it waited (that record's transaction held the asset FOR KEY SHARE).
      await executor.select({ id: assets.id }).from(assets).where(eq(assets.id, assetId)).for("update");
    }
    // One statement, so both counts come from one snapshot.
    const [row] = await executor
      .select({
        wellTests: executor.$count(wellTests, eq(wellTests.assetId, assetId)),
        meterReadings: executor.$count(meterReadings, eq(meterReadings.meterId, assetId)),
      })
      .from(sql`(VALUES (1)) AS one`);
    return { wellTests: row?.wellTests ?? 0, meterReadings: row?.meterReadings ?? 0 };
  }

  async device(id: string, lock?: RowLock) {
    const query = this.#s
      .executor()
      .select({ device: devices, projectId: assets.projectId })
      .from(devices)
      .innerJoin(assets, eq(assets.id, devices.assetId))
      .where(eq(devices.id, id))
      .limit(1);
    const [row] = lock && this.#s.inTransaction() ? await query.for(lock, { of: devices }) : await query;
    return row;
  }

  async devicesOf(assetIds: readonly string[]) {
    if (assetIds.length === 0) return [];
    return this.#s
      .executor()
      .select()
      .from(devices)
      .where(inArray(devices.assetId, [...assetIds]))
      .orderBy(asc(devices.name), asc(devices.id));
  }

  async insertDevice(row: NewDeviceRow) {
    return inserted(await this.#s.executor().insert(devices).values(row).returning(), "device");
  }

  async updateDevice(id: string, set: Partial<Omit<NewDeviceRow, "id" | "assetId">>) {
    const [row] = await this.#s.executor().update(devices).set(set).where(eq(devices.id, id)).returning();
    return row;
  }

  async deleteDevice(id: string) {
    const gone = await this.#s
      .executor()
      .delete(devices)
      .where(eq(devices.id, id))
      .returning({ id: devices.id });
    return gone.length > 0;
  }

  async variable(id: string) {
    const [row] = await this.#s
      .executor()
      .select({
        variable: variables,
        assetId: devices.assetId,
        protocol: devices.protocol,
        projectId: assets.projectId,
      })
      .from(variables)
      .innerJoin(devices, eq(devices.id, variables.deviceId))
      .innerJoin(assets, eq(assets.id, devices.assetId))
      .where(eq(variables.id, id))
      .limit(1);
    return row;
  }

  async variablesOf(deviceIds: readonly string[]) {
    if (deviceIds.length === 0) return [];
    return this.#s
      .executor()
      .select()
      .from(variables)
      .where(inArray(variables.deviceId, [...deviceIds]))
      .orderBy(asc(variables.alias), asc(variables.id));
  }

  async variableWithAlias(assetId: string, alias: string, except?: string) {
    const sameAlias = and(eq(devices.assetId, assetId), eq(variables.alias, alias));
    const executor = this.#s.executor();
    if (this.#s.inTransaction()) await lockAliases(executor, assetId);
    const [row] = await executor
      .select({ id: variables.id, deviceId: variables.deviceId })
      .from(variables)
      .innerJoin(devices, eq(devices.id, variables.deviceId))
      .where(except === undefined ? sameAlias : and(sameAlias, ne(variables.id, except)))
      .orderBy(asc(variables.id))
      .limit(1);
    return row;
  }

  async insertVariable(row: NewVariableRow) {
    return inserted(await this.#s.executor().insert(variables).values(row).returning(), "variable");
  }

  async updateVariable(id: string, set: Partial<Omit<NewVariableRow, "id" | "deviceId">>) {
    const [row] = await this.#s.executor().update(variables).set(set).where(eq(variables.id, id)).returning();
    return row;
  }

  async deleteVariable(id: string) {
    const gone = await this.#s
      .executor()
      .delete(variables)
      .where(eq(variables.id, id))
      .returning({ id: variables.id });
    return gone.length > 0;
  }
}
