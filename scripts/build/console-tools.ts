import { readFileSync } from "node:fs";

// Prints what building the console needs (esbuild, lit, uplot, qrcode-generator and their
// dependencies), each at the version package-lock.json pins, for `npm install`: the image build
// installs only these, not every devDependency (scripts/container/build-image-root.sh).
// Usage: console-tools.ts LOCKFILE
const ROOTS = ["esbuild", "lit", "uplot", "qrcode-generator"];

type Entry = { version?: string; dependencies?: Record<string, string> };
const lock = JSON.parse(readFileSync(process.argv[2] ?? "package-lock.json", "utf8")) as {
  packages: Record<string, Entry>;
};

const pinned = new Map<string, string>();
const visit = (name: string) => {
  if (pinned.has(name)) return;
  const entry = lock.packages[`node_modules/${name}`];
  if (!entry?.version) throw new Error(`package-lock.json has no top-level ${name}`);
  pinned.set(name, entry.version);
  // esbuild's platform binaries are optionalDependencies it pins exactly itself: npm picks this
  // machine's one.
  for (const dependency of Object.keys(entry.dependencies ?? {})) visit(dependency);
};
for (const root of ROOTS) visit(root);
process.stdout.write(`${[...pinned].map(([name, version]) => `${name}@${version}`).join(" ")}\n`);
