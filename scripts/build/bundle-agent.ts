import { readFileSync } from "node:fs";
import { basename, join, resolve, sep } from "node:path";
import { type BuildOptions, build, type Metafile, type Plugin } from "esbuild";
import { buildLocalPage } from "../../agent/local-page/page-build.ts";
import type { LocalPageFiles } from "../../agent/local-page/page-files.ts";

export const ROOT = join(import.meta.dirname, "..", "..");

/**
 * Modules kept out of the main script: each is bundled on its own into the SEA asset
 * `chunks/<name>.cjs`, and the main script loads it on first use (agent/sea/chunk.ts). The OPC UA
 * client is 2.2 of the agent's 3.4 MB of JavaScript: out of the main script, an agent without
 * OPC UA devices no longer holds its source in its heap, nor its pages of the executable.
 * `packages`: the node_modules names that belong to the chunk only (checked on each build).
 */
export const SEA_CHUNKS = [
  {
    name: "opcua-sdk",
    entry: join(ROOT, "agent", "drivers", "opcua", "opcua-sdk.ts"),
    packages: /^node-opcua/,
  },
] as const;

const CHUNK_LOADER = join(ROOT, "agent", "sea", "chunk.ts");

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

/** In the main script, an import of a chunk's entry becomes the chunk loader's require of its asset. */
const chunksFromAssets: Plugin = {
  name: "chunks-from-assets",
  setup(b) {
    for (const chunk of SEA_CHUNKS) {
      b.onResolve(
        { filter: new RegExp(`[\\\\/]${basename(chunk.entry).replaceAll(".", "\\.")}$`) },
        (args) =>
          resolve(args.resolveDir, args.path) === chunk.entry
            ? { path: chunk.name, namespace: "sea-chunk" }
            : undefined,
      );
    }
    b.onLoad({ filter: /.*/, namespace: "sea-chunk" }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(CHUNK_LOADER)}).loadChunk(${JSON.stringify(args.path)});`,
      resolveDir: ROOT,
      loader: "js",
    }));
  },
};

const LOCAL_PAGE_FILES = join(ROOT, "agent", "local-page", "page-files.ts");

/**
 * The agent's local page, built once here, travels inside the main script: page-files.ts (which
 * builds the page with esbuild when run from source) becomes a module holding the built files.
 */
function localPageInside(files: LocalPageFiles): Plugin {
  return {
    name: "local-page-inside",
    setup(b) {
      b.onResolve({ filter: /[\\/]page-files\.ts$/ }, (args) =>
        resolve(args.resolveDir, args.path) === LOCAL_PAGE_FILES
          ? { path: "page-files", namespace: "local-page" }
          : undefined,
      );
      b.onLoad({ filter: /.*/, namespace: "local-page" }, () => ({
        contents: `const files = ${JSON.stringify(files)};\nexport function localPageFiles() { return Promise.resolve(files); }`,
        loader: "js",
      }));
    },
  };
}

function common(build_: { version: string; commit: string }): BuildOptions {
  return {
    bundle: true,
    write: false,
    platform: "node",
    target: "node24",
    format: "cjs",
    // 1.2 MB instead of 1.7 MB (main script): less to read and parse at start (RSS), with function
    // and class names kept (keepNames) for readable stack traces.
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
  };
}

/** The packages (node_modules/<name>) a bundle was made from. */
function packagesIn(metafile: Metafile): Set<string> {
  const names = new Set<string>();
  for (const input of Object.keys(metafile.inputs)) {
    const m = /(?:^|[\\/])node_modules[\\/]((?:@[^\\/]+[\\/])?[^\\/]+)/.exec(input);
    if (m?.[1]) names.add(m[1].split(sep).join("/"));
  }
  return names;
}

export type AgentBundle = {
  /** The main script. */
  code: string;
  /** Each of SEA_CHUNKS: its SEA asset name (`chunks/<name>.cjs`) and its code. */
  chunks: Record<string, string>;
  warnings: string[];
};

/** The agent as CommonJS, the input of every single executable: a main script and its chunks. */
export async function bundleAgent(build_: { version: string; commit: string }): Promise<AgentBundle> {
  const options = common(build_);
  const page = await buildLocalPage();
  const main = await build({
    ...options,
    entryPoints: [join(ROOT, "agent", "main.ts")],
    metafile: true,
    plugins: [serialportFromAssets, chunksFromAssets, localPageInside(page)],
  });
  // The swap must have happened: else the executable would try to build its page with esbuild.
  if (Object.keys(main.metafile.inputs).some((input) => input.endsWith("page-build.ts")))
    throw new Error("the main script bundles agent/local-page/page-build.ts instead of the built page");
  // A chunk's package imported by another path than its entry would land in the main script too.
  const inMain = [...packagesIn(main.metafile)];
  for (const chunk of SEA_CHUNKS) {
    const leaked = inMain.filter((p) => chunk.packages.test(p));
    if (leaked.length > 0)
      throw new Error(`the main script bundles ${leaked.join(", ")}, kept in the chunk ${chunk.name}`);
  }
  const [out] = main.outputFiles ?? [];
  if (!out) throw new Error("esbuild produced no output");
  const warnings = main.warnings.map((w) => w.text);
  const chunks: Record<string, string> = {};
  for (const chunk of SEA_CHUNKS) {
    const built = await build({ ...options, entryPoints: [chunk.entry] });
    const [code] = built.outputFiles ?? [];
    if (!code) throw new Error(`esbuild produced no output for the chunk ${chunk.name}`);
    chunks[`chunks/${chunk.name}.cjs`] = code.text;
    warnings.push(...built.warnings.map((w) => `${chunk.name}: ${w.text}`));
  }
  return { code: out.text, chunks, warnings };
}

export function packageVersion(): string {
  return (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;
}
