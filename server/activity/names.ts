import type { ServiceContext } from "../services/context.ts";

/** A project's name for a console line; its id when it is gone. */
export async function projectName(ctx: ServiceContext, id: string): Promise<string> {
  return (await ctx.store.field.project(id))?.name ?? id;
}

/** An asset's name for a console line; its id when it is gone. */
export async function assetName(ctx: ServiceContext, id: string): Promise<string> {
  return (await ctx.store.field.asset(id))?.name ?? id;
}
