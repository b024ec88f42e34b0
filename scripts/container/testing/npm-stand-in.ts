import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from "node:fs";
import { dirname, join } from "node:path";

// `npm` for scripts/container/image.test.ts: the image's RUN steps install packages with npm, and a
// test run has installed them all already (npm ci in the checkout, CAUDAL_NPM_FROM). Installing
// again from the registry cost minutes on a machine with no npm cache (issue 28 §7), so this takes
// them from that node_modules instead: the same lockfile, hence the same packages at the same
// versions and paths. Only the commands the image's steps use are emulated; anything else fails.
//   npm ci --omit=dev …   the lockfile's production packages, hard-linked (copied across file
//                         systems) into ./node_modules: a real tree, so a production dependency
//                         missing from it, or a devDependency the server needs, is found out;
//   npm ci …              every package: a link to each of the checkout's (a build stage's tools);
//   npm install --no-save … NAME@VERSION…  those packages, checked at those versions, linked.

type LockEntry = { version?: string; dev?: boolean; optional?: boolean };

function fail(message: string): never {
  process.stderr.write(`npm (image test stand-in): ${message}\n`);
  process.exit(1);
}

const from = process.env.CAUDAL_NPM_FROM;
if (!from) fail("CAUDAL_NPM_FROM must name the checkout whose node_modules the packages come from");
const source = join(from, "node_modules");
const [command, ...rest] = process.argv.slice(2);
const flags = rest.filter((a) => a.startsWith("-"));
const names = rest.filter((a) => !a.startsWith("-"));
// Flags that change nothing here: no scripts run, and nothing is audited, funded or logged.
const QUIET = /^--(ignore-scripts|no-audit|no-fund|no-save|no-package-lock|loglevel=\w+)$/;

/** Links `name`'s folder of the checkout into ./node_modules (scoped names get their scope folder). */
function link(name: string): void {
  const to = join("node_modules", name);
  mkdirSync(dirname(to), { recursive: true });
  symlinkSync(join(source, name), to);
}

if (command === "ci") {
  const unknown = flags.filter((f) => !QUIET.test(f) && f !== "--omit=dev");
  if (unknown.length > 0 || names.length > 0) fail(`npm ci ${rest.join(" ")}: not emulated`);
  const lock = readFileSync("package-lock.json", "utf8");
  if (lock !== readFileSync(join(from, "package-lock.json"), "utf8"))
    fail("package-lock.json differs from the checkout's: its node_modules is not what npm ci would install");
  if (existsSync("node_modules")) fail("./node_modules exists already; npm ci would remove it");
  mkdirSync("node_modules");
  if (!flags.includes("--omit=dev")) {
    for (const entry of readdirSync(source)) {
      // The checkout's build caches stay its own (scripts/build/agent-binaries.ts works in .cache).
      if (entry === ".cache") continue;
      if (entry.startsWith("@"))
        for (const scoped of readdirSync(join(source, entry))) link(`${entry}/${scoped}`);
      else link(entry);
    }
    process.exit(0);
  }
  const packages = (JSON.parse(lock) as { packages: Record<string, LockEntry> }).packages;
  // Top-level production packages; nested ones come with the folder they are nested in.
  const wanted = Object.entries(packages).filter(
    ([path, entry]) =>
      path.startsWith("node_modules/") && !path.slice(13).includes("node_modules/") && !entry.dev,
  );
  // One cp per destination folder (node_modules, or a scope's), not one per package.
  const byFolder = new Map<string, string[]>();
  for (const [path, entry] of wanted) {
    const at = join(from, path);
    // npm installs only the optional packages for this platform, as the checkout's install did.
    if (!existsSync(at)) {
      if (entry.optional) continue;
      fail(`${path} is in the lockfile but not installed in ${from}: run npm ci there`);
    }
    byFolder.set(dirname(path), [...(byFolder.get(dirname(path)) ?? []), at]);
  }
  for (const [folder, sources] of byFolder) {
    mkdirSync(folder, { recursive: true });
    try {
      execFileSync("cp", ["-R", "--link", "--no-dereference", ...sources, folder], { stdio: "ignore" });
    } catch {
      execFileSync("cp", ["-R", "--no-dereference", ...sources, folder]);
    }
  }
  process.exit(0);
}

if (command === "install" || command === "i") {
  const unknown = flags.filter((f) => !QUIET.test(f));
  if (unknown.length > 0 || !flags.includes("--no-save") || names.length === 0)
    fail(`npm install ${rest.join(" ")}: not emulated`);
  for (const spec of names) {
    const at = spec.lastIndexOf("@");
    if (at <= 0) fail(`npm install ${spec}: only NAME@VERSION is emulated`);
    const name = spec.slice(0, at);
    const version = spec.slice(at + 1);
    const manifest = join(source, name, "package.json");
    if (!existsSync(manifest)) {
      // esbuild's platform packages are optional: only this machine's one is installed.
      if (name.startsWith("@esbuild/")) continue;
      fail(`${name} is not installed in ${from}`);
    }
    const installed = (JSON.parse(readFileSync(manifest, "utf8")) as { version: string }).version;
    if (installed !== version) fail(`${name}@${version} asked, ${installed} installed in ${from}`);
    link(name);
  }
  process.exit(0);
}

fail(`npm ${process.argv.slice(2).join(" ")}: not emulated`);
