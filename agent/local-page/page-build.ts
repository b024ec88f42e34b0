import { readFileSync } from "node:fs";
import { join } from "node:path";
import { build } from "esbuild";
import type { LocalPageFiles } from "./page-files.ts";

const CONSOLE = join(import.meta.dirname, "..", "..", "console");
const SOURCE = join(CONSOLE, "agent-page");

const TYPES: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
};

/**
 * Bundles the agent's local page (console/agent-page/) with esbuild, in memory: `/` and
 * `/assets/main.js`, `/assets/page.css`, `/assets/icon.svg` (the console's icon). The names are
 * fixed: the agent serves them with `no-store`, so a new agent never meets an old page.
 */
export async function buildLocalPage(): Promise<LocalPageFiles> {
  const result = await build({
    entryPoints: [join(SOURCE, "main.ts"), join(SOURCE, "page.css")],
    bundle: true,
    write: false,
    outdir: "/assets",
    format: "esm",
    platform: "browser",
    target: ["chrome109", "firefox115", "safari16"],
    minify: true,
    legalComments: "none",
    charset: "utf8",
    logLevel: "silent",
  });
  if (result.errors.length > 0) throw new Error(result.errors.map((e) => e.text).join("\n"));
  const files: LocalPageFiles = {
    "/": { type: "text/html; charset=utf-8", body: readFileSync(join(SOURCE, "index.html"), "utf8") },
    "/assets/icon.svg": { type: "image/svg+xml", body: readFileSync(join(CONSOLE, "icon.svg"), "utf8") },
  };
  for (const out of result.outputFiles) {
    // outdir "/assets": each output's path is its URL path.
    const type = TYPES[out.path.slice(out.path.lastIndexOf("."))];
    if (!type) throw new Error(`the local page's build made ${out.path}, which has no content type`);
    files[out.path] = { type, body: out.text };
  }
  for (const needed of ["/assets/main.js", "/assets/page.css"])
    if (!files[needed]) throw new Error(`the local page's build made no ${needed}`);
  return files;
}
