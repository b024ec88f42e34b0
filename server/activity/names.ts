import { eq } from "drizzle-orm";
import type { ServiceContext } from "../services/context.ts";
import { assets, projects } from "../store/sqlite/schema/index.ts";

/** A project's name for a console line; its id when it is gone. */
export function projectName(ctx: ServiceContext, id: string): string {
  return ctx.db.select({ name: projects.name }).from(projects).where(eq(projects.id, id)).get()?.name ?? id;
}

/** An asset's name for a console line; its id when it is gone. */
export function assetName(ctx: ServiceContext, id: string): string {
  return ctx.db.select({ name: assets.name }).from(assets).where(eq(assets.id, id)).get()?.name ?? id;
}
