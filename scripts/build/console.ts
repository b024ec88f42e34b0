import { parseArgs } from "node:util";
import { buildConsole, DEFAULT_CONSOLE_DIST } from "./console-bundle.ts";

// `npm run build:console [-- --out DIR]`: the operator console into dist/console (CONSOLE_DIR).
const { values } = parseArgs({ options: { out: { type: "string" } } });
const started = Date.now();
const { manifest, brotliBytes } = await buildConsole(values.out ?? DEFAULT_CONSOLE_DIST);
const total = Object.values(brotliBytes).reduce((a, b) => a + b, 0);
process.stdout.write(
  `console built into ${values.out ?? DEFAULT_CONSOLE_DIST} in ${Date.now() - started} ms: ` +
    `${Object.keys(manifest.assets).join(", ")} (${(total / 1024).toFixed(1)} KiB with brotli)\n`,
);
