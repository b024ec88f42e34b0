import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const serverDir = dirname(fileURLToPath(import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith(".ts"))
    .map((e) => join(e.parentPath, e.name));
}

/** Every relative module a file imports (static and dynamic), as paths from server/. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const specifiers = [...text.matchAll(/(?:from|import\()\s*"(\.{1,2}\/[^"]+)"/g)].map((m) => m[1] ?? "");
  return specifiers.map((s) => relative(serverDir, resolve(dirname(file), s)));
}

describe("server layout", () => {
  it("services do not import the HTTP layer: they throw AppError (server/errors.ts), http/ maps it", () => {
    const offenders = sourceFiles(join(serverDir, "services")).flatMap((file) =>
      importsOf(file)
        .filter((target) => target.startsWith("http/"))
        .map((target) => `${relative(serverDir, file)} imports ${target}`),
    );
    expect(offenders).toEqual([]);
  });
});
