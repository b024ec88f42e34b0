import { and, asc, count, eq, inArray, like, ne, type SQL } from "drizzle-orm";
import type { FieldStore } from "../ports/field-store.ts";
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
import type { SqliteSession } from "./session.ts";

export class SqliteFieldStore implements FieldStore {
  readonly #s: SqliteSession;

  constructor(session: SqliteSession) {
    this.#s = session;
  }

  projects(ids?: readonly string[]) {
    return this.#s.gate.run(() => {
      if (ids?.length === 0) return [];
      const query = this.#s.db.select().from(projects);
      return (ids ? query.where(inArray(projects.id, [...ids])) : query)
        .orderBy(asc(projects.name), asc(projects.id))
        .all();
    });
  }

  activeProjects(ids?: readonly string[]) {
    return this.#s.gate.run(() => {
      if (ids?.length === 0) return [];
      return this.#s.db
        .select()
        .from(projects)
        .where(and(ids && inArray(projects.id, [...ids]), eq(projects.isActive, true)))
        .orderBy(asc(projects.name), asc(projects.id))
        .all();
    });
  }

  project(id: string) {
    return this.#s.gate.run(() => this.#s.db.select().from(projects).where(eq(projects.id, id)).get());
  }

  projectIdWithSlug(slug: string, except?: string) {
    return this.#s.gate.run(() => {
      const bySlug = eq(projects.slug, slug);
      return this.#s.db
        .select({ id: projects.id })
        .from(projects)
        .where(except === undefined ? bySlug : and(bySlug, ne(projects.id, except)))
        .get()?.id;
    });
  }

  projectSlugsFrom(prefix: string) {
    return this.#s.gate.run(() =>
      this.#s.db
        .select({ slug: projects.slug })
        .from(projects)
        // LIKE narrows (it ignores ASCII case and reads _ and % as wildcards); startsWith decides.
        .where(like(projects.slug, `${prefix}%`))
        .all()
        .map((r) => r.slug)
        .filter((slug) => slug.startsWith(prefix)),
    );
  }

  insertProject(row: NewProjectRow) {
    return this.#s.gate.run(() => this.#s.db.insert(projects).values(row).returning().get());
  }

  updateProject(id: string, set: Partial<Omit<NewProjectRow, "id">>) {
    return this.#s.gate.run(() =>
      this.#s.db.update(projects).set(set).where(eq(projects.id, id)).returning().get(),
    );
  }

  deleteProject(id: string) {
    return this.#s.gate.run(() => this.#s.db.delete(projects).where(eq(projects.id, id)).run().changes > 0);
  }

  assignProject(userId: string, projectId: string) {
    return this.#s.gate.run(() => {
      this.#s.db.insert(userProjects).values({ userId, projectId }).run();
    });
  }

  asset(id: string) {
    return this.#s.gate.run(() => this.#s.db.select().from(assets).where(eq(assets.id, id)).get());
  }

  assetsOf(projectId: string) {
    return this.#s.gate.run(() =>
      this.#s.db
        .select()
        .from(assets)
        .where(eq(assets.projectId, projectId))
        .orderBy(asc(assets.name), asc(assets.id))
        .all(),
    );
  }

  tanks(projectIds?: readonly string[]) {
    return this.#s.gate.run(() => {
      if (projectIds?.length === 0) return [];
      const conditions: SQL[] = [eq(assets.assetType, "tank")];
      if (projectIds) conditions.push(inArray(assets.projectId, [...projectIds]));
      return this.#s.db
        .select()
        .from(assets)
        .where(and(...conditions))
        .orderBy(asc(assets.name), asc(assets.id))
        .all();
    });
  }

  insertAsset(row: NewAssetRow) {
    return this.#s.gate.run(() => this.#s.db.insert(assets).values(row).returning().get());
  }

  updateAsset(id: string, set: Partial<Omit<NewAssetRow, "id" | "projectId">>) {
    return this.#s.gate.run(() =>
      this.#s.db.update(assets).set(set).where(eq(assets.id, id)).returning().get(),
    );
  }

  deleteAsset(id: string) {
    return this.#s.gate.run(() => this.#s.db.delete(assets).where(eq(assets.id, id)).run().changes > 0);
  }

  assetRecordCounts(assetId: string) {
    return this.#s.gate.run(() => {
      const db = this.#s.db;
      const tests = db.select({ n: count() }).from(wellTests).where(eq(wellTests.assetId, assetId)).get();
      const readings = db
        .select({ n: count() })
        .from(meterReadings)
        .where(eq(meterReadings.meterId, assetId))
        .get();
      return { wellTests: tests?.n ?? 0, meterReadings: readings?.n ?? 0 };
    });
  }

  device(id: string) {
    return this.#s.gate.run(() =>
      this.#s.db
        .select({ device: devices, projectId: assets.projectId })
        .from(devices)
        .innerJoin(assets, eq(assets.id, devices.assetId))
        .where(eq(devices.id, id))
        .get(),
    );
  }

  devicesOf(assetIds: readonly string[]) {
    return this.#s.gate.run(() =>
      assetIds.length === 0
        ? []
        : this.#s.db
            .select()
            .from(devices)
            .where(inArray(devices.assetId, [...assetIds]))
            .orderBy(asc(devices.name), asc(devices.id))
            .all(),
    );
  }

  insertDevice(row: NewDeviceRow) {
    return this.#s.gate.run(() => this.#s.db.insert(devices).values(row).returning().get());
  }

  updateDevice(id: string, set: Partial<Omit<NewDeviceRow, "id" | "assetId">>) {
    return this.#s.gate.run(() =>
      this.#s.db.update(devices).set(set).where(eq(devices.id, id)).returning().get(),
    );
  }

  deleteDevice(id: string) {
    return this.#s.gate.run(() => this.#s.db.delete(devices).where(eq(devices.id, id)).run().changes > 0);
  }

  variable(id: string) {
    return this.#s.gate.run(() =>
      this.#s.db
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
        .get(),
    );
  }

  variablesOf(deviceIds: readonly string[]) {
    return this.#s.gate.run(() =>
      deviceIds.length === 0
        ? []
        : this.#s.db
            .select()
            .from(variables)
            .where(inArray(variables.deviceId, [...deviceIds]))
            .orderBy(asc(variables.alias), asc(variables.id))
            .all(),
    );
  }

  variableWithAlias(assetId: string, alias: string, except?: string) {
    return this.#s.gate.run(() => {
      const sameAlias = and(eq(devices.assetId, assetId), eq(variables.alias, alias));
      return this.#s.db
        .select({ id: variables.id, deviceId: variables.deviceId })
        .from(variables)
        .innerJoin(devices, eq(devices.id, variables.deviceId))
        .where(except === undefined ? sameAlias : and(sameAlias, ne(variables.id, except)))
        .orderBy(asc(variables.id))
        .limit(1)
        .get();
    });
  }

  insertVariable(row: NewVariableRow) {
    return this.#s.gate.run(() => this.#s.db.insert(variables).values(row).returning().get());
  }

  updateVariable(id: string, set: Partial<Omit<NewVariableRow, "id" | "deviceId">>) {
    return this.#s.gate.run(() =>
      this.#s.db.update(variables).set(set).where(eq(variables.id, id)).returning().get(),
    );
  }

  deleteVariable(id: string) {
    return this.#s.gate.run(() => this.#s.db.delete(variables).where(eq(variables.id, id)).run().changes > 0);
  }
}
