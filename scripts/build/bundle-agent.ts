import { readFileSync } from "node:fs";
import { join } from "node:path";
import { build, type Plugin } from "esbuild";

export const ROOT = join(import.meta.dirname, "..", "..");

/**
 * @serialport/bindings-cpp loads its addon with node-gyp-build from its package folder, which a
 * single executable does not have: its loader is swapped for agent/native/serialport-bindings.ts,
 * which loads the addon from the executable's assets.
 */
const serialportFromAssets: Plugin = {
  name: "serialport-from-assets",
  setup(b) {
    b.onResolve({ filter: /^\.\/serialport-bindings$/ }, (args) =>
      args.importer.includes(join("@serialport", "bindings-cpp"))
        ? { path: join(ROOT, "agent", "native", "serialport-bindings.ts") }
        : undefined,
    );
  },
};

export type AgentBundle = { code: string; warnings: string[] };

/** The agent as one CommonJS file, the input of every single executable. */
export async function bundleAgent(build_: { version: string; commit: string }): Promise<AgentBundle> {
  const result = await build({
    entryPoints: [join(ROOT, "agent", "main.ts")],
    bundle: true,
    write: false,
    platform: "node",
    target: "node24",
    format: "cjs",
    // 4.5 MB instead of 6.6 MB: less to read and parse at start (RSS), with function and class
    // names kept (keepNames) for readable stack traces.
    minify: true,
    keepNames: true,
    legalComments: "none",
    // import.meta.url as in an ES module: the executable itself (only read by code run from source).
    banner: { js: `var __caudal_import_meta_url = require("node:url").pathToFileURL(__filename).href;` },
    define: { __CAUDAL_BUILD__: JSON.stringify(build_), "import.meta.url": "__caudal_import_meta_url" },
    // An optional lock provider of @ster5/global-mutex (node-opcua) that is not installed and not used.
    external: ["proper-lockfile"],
    plugins: [serialportFromAssets],
    logLevel: "silent",
  });
  const [out] = result.outputFiles;
  if (!out) throw new Error("esbuild produced no output");
  return { code: out.text, warnings: result.warnings.map((w) => w.text) };
}

export function packageVersion(): string {
  return (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;
}
