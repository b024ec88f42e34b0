import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

/** Set by the single-executable build (scripts/build/bundle-agent.ts); absent when run from source. */
declare const __CAUDAL_BUILD__: { version: string; commit: string } | undefined;

function fromSource(): { version: string; commit: string } {
  const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
    version: string;
  };
  let commit = "unknown";
  try {
    commit = execFileSync("git", ["rev-parse", "--short=12", "HEAD"], {
      cwd: new URL("..", import.meta.url),
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }).trim();
  } catch {
    // Not a git checkout (an unpacked release): the version alone names it.
  }
  return { version: pkg.version, commit };
}

const build = typeof __CAUDAL_BUILD__ === "undefined" ? fromSource() : __CAUDAL_BUILD__;

export const AGENT_VERSION: string = build.version;
export const AGENT_COMMIT: string = build.commit;
