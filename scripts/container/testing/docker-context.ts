import { copyFileSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";

/** One line of a .dockerignore: a glob, or an exception (`!glob`) to the lines before it. */
export type IgnorePattern = { glob: string; exception: boolean; regex: RegExp };

/**
 * Docker's glob (moby/patternmatcher, Go's filepath.Match plus `**`): `*` and `?` stay within one
 * folder and match dot files too (unlike shell globs), `**` spans any number of folders.
 */
function globRegex(glob: string): RegExp {
  let source = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob.charAt(i);
    if (glob.startsWith("**/", i)) {
      source += "(?:.*/)?";
      i += 2;
    } else if (glob.startsWith("**", i)) {
      source += ".*";
      i += 1;
    } else if (c === "*") source += "[^/]*";
    else if (c === "?") source += "[^/]";
    else source += c.replace(/[.+^${}()|\\]/g, "\\$&");
  }
  return new RegExp(`^${source}$`);
}

export function readDockerignore(file: string): IgnorePattern[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"))
    .map((line) => {
      const exception = line.startsWith("!");
      const glob = (exception ? line.slice(1) : line).replace(/^\/+/, "").replace(/\/+$/, "");
      if (/[[\]{}\\]/.test(glob)) throw new Error(`.dockerignore: unsupported pattern ${line}`);
      return { glob, exception, regex: globRegex(glob) };
    });
}

/** Docker's rule: the last pattern that matches the path, or one of its parent folders, decides. */
export function isIgnored(path: string, patterns: readonly IgnorePattern[]): boolean {
  const parts = path.split("/");
  const candidates = parts.map((_, i) => parts.slice(0, i + 1).join("/"));
  let ignored = false;
  for (const { regex, exception } of patterns)
    if (candidates.some((candidate) => regex.test(candidate))) ignored = !exception;
  return ignored;
}

/**
 * Copies into `dest` the files of `source` that a `docker build source` would send (the build
 * context), and returns their paths. A folder that is ignored is entered only when an exception
 * names something inside it, as BuildKit does.
 */
export function copyBuildContext(source: string, dest: string, patterns: readonly IgnorePattern[]): string[] {
  const copied: string[] = [];
  const walk = (relative: string) => {
    for (const entry of readdirSync(join(source, relative), { withFileTypes: true })) {
      const path = relative === "" ? entry.name : `${relative}/${entry.name}`;
      const ignored = isIgnored(path, patterns);
      if (entry.isDirectory()) {
        if (!ignored || patterns.some((p) => p.exception && p.glob.startsWith(`${path}/`))) walk(path);
      } else if (!ignored) {
        mkdirSync(dirname(join(dest, path)), { recursive: true });
        copyFileSync(join(source, path), join(dest, path));
        copied.push(path);
      }
    }
  };
  walk("");
  return copied;
}
