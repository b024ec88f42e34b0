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
