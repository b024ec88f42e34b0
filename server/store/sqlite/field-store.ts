import { and, asc, eq, inArray, like, ne } from "drizzle-orm";
import type { FieldStore } from "../ports/field-store.ts";
import type { NewProjectRow } from "../rows.ts";
import { assets, devices, projects, userProjects, variables } from "./schema/index.ts";
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
    return this.#s.gate.run(() => {
      this.#s.db.delete(projects).where(eq(projects.id, id)).run();
    });
  }

  assignProject(userId: string, projectId: string) {
    return this.#s.gate.run(() => {
      this.#s.db.insert(userProjects).values({ userId, projectId }).run();
    });
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
}
