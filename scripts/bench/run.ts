// Servers started by benchmarks load drizzle-orm as server/main.ts does.
import "../../server/boot/drizzle-commonjs.ts";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

// `npm run bench -- <name> [args]`: runs scripts/bench/<name>.ts, which exports `run(args)`.
const [name, ...args] = process.argv.slice(2);
if (!name || !/^[a-z0-9-]+$/.test(name)) {
  process.stderr.write("usage: npm run bench -- <name> [args]   (e.g. npm run bench -- auth)\n");
  process.exit(2);
}
const file = fileURLToPath(new URL(`./${name}.ts`, import.meta.url));
if (!existsSync(file)) {
  process.stderr.write(`bench: no benchmark named "${name}" (looked for ${file})\n`);
  process.exit(2);
}
const mod: { run?: (args: string[]) => Promise<void> } = await import(file);
if (typeof mod.run !== "function") {
  process.stderr.write(`bench: ${file} does not export run(args)\n`);
  process.exit(2);
}
await mod.run(args);
