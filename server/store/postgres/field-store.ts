import { and, asc, eq, inArray, like, ne } from "drizzle-orm";
import type { FieldStore } from "../ports/field-store.ts";
import type { NewProjectRow } from "../rows.ts";
import { assets, devices, projects, userProjects, variables } from "./schema/index.ts";
import type { PgSession } from "./session.ts";

/** A LIKE pattern matching `text` literally (backslash is PostgreSQL's default escape). */
const literalLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

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

  async project(id: string) {
    const [row] = await this.#s.executor().select().from(projects).where(eq(projects.id, id)).limit(1);
    return row;
  }

  async projectIdWithSlug(slug: string, except?: string) {
    const bySlug = eq(projects.slug, slug);
    const [row] = await this.#s
      .executor()
      .select({ id: projects.id })
      .from(projects)
      .where(except === undefined ? bySlug : and(bySlug, ne(projects.id, except)))
      .limit(1);
    return row?.id;
  }

  async projectSlugsFrom(prefix: string) {
    // Case-sensitive, and in the C locale a prefix LIKE can use the slug's unique index.
    const rows = await this.#s
      .executor()
      .select({ slug: projects.slug })
      .from(projects)
      .where(like(projects.slug, `${literalLike(prefix)}%`));
    return rows.map((r) => r.slug);
  }

  async insertProject(row: NewProjectRow) {
    const [inserted] = await this.#s.executor().insert(projects).values(row).returning();
    if (!inserted) throw new Error("INSERT … RETURNING returned no project row");
    return inserted;
  }

  async updateProject(id: string, set: Partial<Omit<NewProjectRow, "id">>) {
    const [row] = await this.#s.executor().update(projects).set(set).where(eq(projects.id, id)).returning();
    return row;
  }

  async deleteProject(id: string) {
    await this.#s.executor().delete(projects).where(eq(projects.id, id));
  }

  async assignProject(userId: string, projectId: string) {
    await this.#s.executor().insert(userProjects).values({ userId, projectId });
  }

  async assetsOf(projectId: string) {
    return this.#s
      .executor()
      .select()
      .from(assets)
      .where(eq(assets.projectId, projectId))
      .orderBy(asc(assets.name), asc(assets.id));
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

  async variablesOf(deviceIds: readonly string[]) {
    if (deviceIds.length === 0) return [];
    return this.#s
      .executor()
      .select()
      .from(variables)
      .where(inArray(variables.deviceId, [...deviceIds]))
      .orderBy(asc(variables.alias), asc(variables.id));
  }
}
