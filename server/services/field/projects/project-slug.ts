import { and, eq, like, ne } from "drizzle-orm";
import { SLUG_MAX, slugify } from "../../../../shared/field/slug.ts";
import { AppError } from "../../../errors.ts";
import { projects } from "../../../store/sqlite/schema/index.ts";
import type { DbOrTx } from "../../audit/append-audit.ts";

const taken = (slug: string) =>
  new AppError("Conflict", `slug: "${slug}" is already the slug of another project; choose another`);

function slugOwner(db: DbOrTx, slug: string): string | undefined {
  return db.select({ id: projects.id }).from(projects).where(eq(projects.slug, slug)).get()?.id;
}

/**
 * The slug of a new project: the one asked for (409 when another project has it), else derived
 * from the name (shared/field/slug.ts), with -2, -3, … appended while that is taken.
 */
export function newProjectSlug(db: DbOrTx, name: string, requested: string | undefined): string {
  if (requested !== undefined) {
    if (slugOwner(db, requested) !== undefined) throw taken(requested);
    return requested;
  }
  const base = slugify(name) || "project";
  const used = new Set(
    db
      .select({ slug: projects.slug })
      .from(projects)
      .where(like(projects.slug, `${base}%`))
      .all()
      .map((r) => r.slug),
  );
  if (!used.has(base)) return base;
  for (let n = 2; ; n++) {
    const suffix = `-${n}`;
    const candidate = `${base.slice(0, SLUG_MAX - suffix.length).replace(/-+$/, "")}${suffix}`;
    if (!used.has(candidate)) return candidate;
  }
}

/** The slug after a replace: the current one when none is given; 409 when another project has it. */
export function replacedProjectSlug(
  db: DbOrTx,
  id: string,
  current: string,
  requested: string | undefined,
): string {
  if (requested === undefined || requested === current) return current;
  const other = db
    .select({ id: projects.id })
    .from(projects)
    .where(and(eq(projects.slug, requested), ne(projects.id, id)))
    .get();
  if (other) throw taken(requested);
  return requested;
}
