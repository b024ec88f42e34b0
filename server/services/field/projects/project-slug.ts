import { SLUG_MAX, slugify } from "../../../../shared/field/slug.ts";
import { AppError } from "../../../errors.ts";
import type { FieldStore } from "../../../store/ports/field-store.ts";

const taken = (slug: string) =>
  new AppError("Conflict", `slug: "${slug}" is already the slug of another project; choose another`);

/**
 * The slug of a new project: the one asked for (409 when another project has it), else derived
 * from the name (shared/field/slug.ts), with -2, -3, … appended while that is taken.
 */
export async function newProjectSlug(field: FieldStore, name: string, requested: string | undefined) {
  if (requested !== undefined) {
    if ((await field.projectIdWithSlug(requested)) !== undefined) throw taken(requested);
    return requested;
  }
  const base = slugify(name) || "project";
  const used = new Set(await field.projectSlugsFrom(base));
  if (!used.has(base)) return base;
  for (let n = 2; ; n++) {
    const suffix = `-${n}`;
    const candidate = `${base.slice(0, SLUG_MAX - suffix.length).replace(/-+$/, "")}${suffix}`;
    if (!used.has(candidate)) return candidate;
  }
}

/** The slug after a replace: the current one when none is given; 409 when another project has it. */
export async function replacedProjectSlug(
  field: FieldStore,
  id: string,
  current: string,
  requested: string | undefined,
): Promise<string> {
  if (requested === undefined || requested === current) return current;
  if ((await field.projectIdWithSlug(requested, id)) !== undefined) throw taken(requested);
  return requested;
}
