import { accessSync, constants, existsSync, readdirSync } from "node:fs";
import { delimiter, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { AGENT_MANIFEST_FILE, type AgentTarget } from "../../../../shared/distribution/agent-manifest.ts";
import { type ServerConfig, serverConfigSchema } from "../../../config.ts";

/** The checkout this server runs from, when it runs from one. */
export const CHECKOUT_ROOT = fileURLToPath(new URL("../../../../", import.meta.url));

/**
 * The order the server builds in: what `npm start`'s installers need first (the Linux install
 * script on x86_64 and the Windows MSI), the ARM executable last.
 */
export const BUILD_ORDER: readonly AgentTarget[] = ["linux-x86_64", "windows-x64", "linux-aarch64"];

/**
 * A program and its first arguments, to which the build's own (`--out DIR --target T...`) are
 * added; tests substitute a cheap one for the real build (CaudalServerOptions.agentBuildCommand).
 */
export type AgentBuildCommand = { command: string; args: readonly string[] };

export type AgentBuildPlan = {
  /** Targets this server can build, in BUILD_ORDER. */
  targets: AgentTarget[];
  /** Why each other target cannot be built here: what an administrator does instead. */
  cannot: Partial<Record<AgentTarget, string>>;
  command: AgentBuildCommand;
  cwd: string;
};

function onPath(program: string): boolean {
  return (process.env.PATH ?? "").split(delimiter).some((dir) => {
    try {
      accessSync(join(dir, program), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** What each target needs besides the checkout's build tooling (scripts/build/sea.ts, winsw.ts). */
function targetNeeds(root: string): Record<AgentTarget, string | null> {
  return {
    "linux-x86_64": onPath("strip") ? null : "strip is not installed (Debian package binutils)",
    "linux-aarch64": onPath("aarch64-linux-gnu-strip")
      ? null
      : "aarch64-linux-gnu-strip is not installed (Debian package binutils-aarch64-linux-gnu)",
    "windows-x64": existsSync(join(root, "node_modules", "node-windows", "bin", "winsw", "winsw.exe"))
      ? null
      : "WinSW is not installed (npm ci installs node-windows, a devDependency)",
  };
}

/** Why nothing can be built here at all, or null. */
function cannotBuildAtAll(config: ServerConfig, root: string): string | null {
  if (config.AGENT_BUILD === "off") return "AGENT_BUILD is off";
  if (!existsSync(join(root, "scripts", "build", "agent.ts")))
    return "this server does not run from a checkout of Caudal, which holds the build tooling";
  const tooling = [join("esbuild", "package.json"), join("postject", "dist", "cli.js")];
  if (!tooling.every((f) => existsSync(join(root, "node_modules", f))))
    return "the build tooling is not installed (npm ci installs esbuild and postject, devDependencies)";
  const dir = resolve(config.AGENT_DIST_DIR);
  let names: string[] = [];
  try {
    names = readdirSync(dir);
  } catch {
    // Missing: the build makes it.
  }
  // A folder of other things is not written into: only an empty one, or one of the build's own.
  if (names.length > 0 && !names.some((n) => n === AGENT_MANIFEST_FILE || n.startsWith("agent-")))
    return "AGENT_DIST_DIR holds other files; the server builds only into an empty folder or an earlier build's";
  return null;
}

/** What this server can build into AGENT_DIST_DIR, and with what; `command` replaces scripts/build/agent.ts (tests). */
export function planAgentBuild(
  config: ServerConfig,
  command?: AgentBuildCommand,
  root = CHECKOUT_ROOT,
): AgentBuildPlan {
  const all = cannotBuildAtAll(config, root);
  const needs = targetNeeds(root);
  const cannot: AgentBuildPlan["cannot"] = {};
  const targets: AgentTarget[] = [];
  for (const target of BUILD_ORDER) {
    const reason = all ?? needs[target];
    if (reason === null) targets.push(target);
    else cannot[target] = reason;
  }
  const program = command ?? {
    command: process.execPath,
    args: [join(root, "scripts", "build", "agent.ts")],
  };
  const args = [
    "--out",
    resolve(config.AGENT_DIST_DIR),
    ...targets.flatMap((t) => ["--target", t]),
    // The build ends itself if the server is killed (its own process group outlives a SIGKILL).
    "--stop-with",
    String(process.pid),
  ];
  return {
    targets,
    cannot,
    command: { command: program.command, args: [...program.args, ...args] },
    cwd: root,
  };
}

/**
 * The build's environment: the server's, without its own settings (its secrets among them): the
 * build needs PATH, HOME and npm's settings to fetch Node runtimes, nothing of the server's.
 */
export function buildEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const settings = new Set(Object.keys(serverConfigSchema.shape));
  return Object.fromEntries(Object.entries(env).filter(([name]) => !settings.has(name)));
}
