import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const serverDir = dirname(fileURLToPath(import.meta.url));
const root = resolve(serverDir, "..");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith(".ts"))
    .map((e) => join(e.parentPath, e.name));
}

/** Every relative module a file imports or re-exports (static, bare and dynamic), as paths from `base`. */
function importsOf(file: string, base = serverDir): string[] {
  const text = readFileSync(file, "utf8");
  const specifiers = [...text.matchAll(/(?:from|import)\s*\(?\s*"(\.{1,2}\/[^"]+)"/g)].map((m) => m[1] ?? "");
  return specifiers.map((s) => relative(base, resolve(dirname(file), s)));
}

/** Tests and what only tests use: test files, `testing/` and `e2e/` folders, the API audit. */
const isTestCode = (path: string): boolean => /\.test\.ts$|(^|\/)(testing|e2e|api-audit)\//.test(path);

describe("server layout", () => {
  it("services do not import the HTTP layer: they throw AppError (server/errors.ts), http/ maps it", () => {
    const offenders = sourceFiles(join(serverDir, "services")).flatMap((file) =>
      importsOf(file)
        .filter((target) => target.startsWith("http/"))
        .map((target) => `${relative(serverDir, file)} imports ${target}`),
    );
    expect(offenders).toEqual([]);
  });

  it("test support lives in testing/ folders, and no product code imports test code", () => {
    const product = ["server", "agent", "shared"]
      .flatMap((dir) => sourceFiles(join(root, dir)))
      .map((file) => relative(root, file))
      .filter((file) => !isTestCode(file));
    const offenders = product.flatMap((file) =>
      importsOf(join(root, file), root)
        .filter(isTestCode)
        .map((target) => `${file} imports ${target}`),
    );
    expect(offenders).toEqual([]);
    // Fixtures and suites are test support wherever they are named so.
    expect(product.filter((file) => /fixtures?\.ts$|-suite\.ts$/.test(file))).toEqual([]);
  });
});

/** What only a storage adapter may import: the engine's driver, its drizzle dialect, the adapter itself. */
const ENGINES = {
  "store/sqlite/": [/^better-sqlite3$/, /^drizzle-orm\/(better-sqlite3|sqlite-core)/],
  "store/postgres/": [/^pg$/, /^drizzle-orm\/(node-postgres|pg-core)/],
} as const;

/** Package imports (not relative ones) of a file, type-only imports included. */
function packagesOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  return [...text.matchAll(/(?:from|import)\s*\(?\s*"([^".][^"]*)"/g)].map((m) => m[1] ?? "");
}

/**
 * The places allowed to import both engines: `caudal-server migrate` (issue 14 §3), which reads a
 * SQLite database and writes a PostgreSQL one through both drizzle schemas and both adapters, and
 * the one module that opens the engine DATABASE_URL names.
 */
const BOTH_ENGINES = ["store/migrate/", "store/open-store.ts"];

describe("storage engines stay behind the store ports", () => {
  const product = sourceFiles(serverDir)
    .map((file) => relative(serverDir, file))
    .filter((file) => !isTestCode(file));
  // A type-only import of store/rows.ts's SQLite schema names types, loads nothing: allowed everywhere.
  const reaches = (file: string, adapter: keyof typeof ENGINES): boolean =>
    !file.startsWith(adapter) &&
    !BOTH_ENGINES.some((allowed) => file.startsWith(allowed)) &&
    file !== "store/rows.ts" &&
    (packagesOf(join(serverDir, file)).some((p) => ENGINES[adapter].some((engine) => engine.test(p))) ||
      importsOf(join(serverDir, file)).some((target) => target.startsWith(adapter)));

  it("nothing outside server/store/postgres/ imports pg or drizzle's pg modules", () => {
    expect(product.filter((file) => reaches(file, "store/postgres/"))).toEqual([]);
  });

  it("nothing outside server/store/sqlite/ imports better-sqlite3, drizzle's sqlite modules or the adapter", () => {
    expect(product.filter((file) => reaches(file, "store/sqlite/"))).toEqual([]);
  });
});
