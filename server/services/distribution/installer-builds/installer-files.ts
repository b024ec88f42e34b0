import { join } from "node:path";
import type { ServiceContext } from "../../context.ts";

/** Built MSIs and their builds' scratch folders: DATA_DIR/installers. */
export function installersDir(ctx: ServiceContext): string {
  return join(ctx.config.DATA_DIR, "installers");
}

export function msiFileName(buildId: string): string {
  return `${buildId}.msi`;
}

export function workDirName(buildId: string): string {
  return `${buildId}.work`;
}
