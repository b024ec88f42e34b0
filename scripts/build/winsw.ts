import { createHash } from "node:crypto";
import { copyFileSync, existsSync, readFileSync, renameSync } from "node:fs";
import { join } from "node:path";
import { WINSW_FILE, type WinswEntry } from "../../shared/distribution/agent-manifest.ts";
import { ROOT } from "./bundle-agent.ts";

/** WinSW as the npm package node-windows ships it (DESIGN.md, "Windows MSI"). */
const WINSW_SOURCE = join(ROOT, "node_modules", "node-windows", "bin", "winsw", "winsw.exe");

/** The bytes of the WinSW the build copies; they are part of the build's inputs. */
export function winswBytes(): Buffer {
  if (!existsSync(WINSW_SOURCE))
    throw new Error(`WinSW is missing at ${WINSW_SOURCE}: run npm ci (node-windows is a devDependency)`);
  return readFileSync(WINSW_SOURCE);
}

/** Copies WinSW beside the executables, so the server builds MSIs without node-windows installed. */
export function copyWinsw(outDir: string): WinswEntry {
  const bytes = winswBytes();
  const partial = join(outDir, `${WINSW_FILE}.partial`);
  copyFileSync(WINSW_SOURCE, partial);
  renameSync(partial, join(outDir, WINSW_FILE));
  return { file: WINSW_FILE, bytes: bytes.length, sha256: createHash("sha256").update(bytes).digest("hex") };
}
