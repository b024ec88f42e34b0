import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import {
  AGENT_MANIFEST_FILE,
  AGENT_TARGETS,
  type AgentArtifact,
  type AgentBuildManifest,
  type AgentTarget,
  agentBuildManifestSchema,
} from "../../../shared/distribution/agent-manifest.ts";
import { AppError } from "../../errors.ts";

/** What the server's own build says about executables that are not served (agent-build/agent-build.ts). */
export type AgentBuildState = {
  /** The 503 for a request that needs one of `targets`, none of which is served: `what` names it. */
  notServed(targets: readonly AgentTarget[], what: string): AppError;
  /** Whether a build running now makes `target`. */
  beingBuilt(target: AgentTarget): boolean;
};

/** No build of its own (an app built only to inspect routes): an administrator builds them. */
const NO_BUILD: AgentBuildState = {
  notServed: (_targets, what) =>
    new AppError(
      "AgentNotBuilt",
      `${what} is not built on this server: an administrator runs npm run build:agent`,
    ),
  beingBuilt: () => false,
};

/**
 * What `npm run build:agent`, or the server's own build at start, left in AGENT_DIST_DIR. The
 * manifest is re-read when its file changes (a build writes it after each executable).
 */
export class AgentArtifacts {
  readonly dir: string;
  readonly build: AgentBuildState;
  #cached: { mtimeMs: number; manifest: AgentBuildManifest | null } | undefined;

  constructor(dir: string, build: AgentBuildState = NO_BUILD) {
    this.dir = dir;
    this.build = build;
  }

  /** The manifest, or null when nothing was built (or it cannot be read: the reason is logged by callers). */
  manifest(): AgentBuildManifest | null {
    const file = join(this.dir, AGENT_MANIFEST_FILE);
    const mtimeMs = statSync(file, { throwIfNoEntry: false })?.mtimeMs;
    if (mtimeMs === undefined) return null;
    if (this.#cached?.mtimeMs === mtimeMs) return this.#cached.manifest;
    let manifest: AgentBuildManifest | null = null;
    try {
      const parsed = agentBuildManifestSchema.safeParse(JSON.parse(readFileSync(file, "utf8")));
      manifest = parsed.success ? parsed.data : null;
    } catch {
      manifest = null;
    }
    this.#cached = { mtimeMs, manifest };
    return manifest;
  }

  /**
   * A target's executable, when it was built and its file is still the size the manifest says
   * (a half-copied or replaced file is not served).
   */
  artifact(
    target: AgentTarget,
  ): { artifact: AgentArtifact; path: string; manifest: AgentBuildManifest } | null {
    const manifest = this.manifest();
    const artifact = manifest?.artifacts.find((a) => a.target === target);
    if (!manifest || !artifact) return null;
    const path = join(this.dir, artifact.file);
    if (statSync(path, { throwIfNoEntry: false })?.size !== artifact.bytes) return null;
    return { artifact, path, manifest };
  }

  /** Whether `target` is served: its executable, and for windows-x64 the WinSW an MSI needs beside it. */
  served(target: AgentTarget): boolean {
    const found = this.artifact(target);
    if (!found) return false;
    const winsw = found.manifest.winsw;
    if (target !== "windows-x64") return true;
    return (
      winsw !== undefined &&
      statSync(join(this.dir, winsw.file), { throwIfNoEntry: false })?.size === winsw.bytes
    );
  }

  /** The targets served now, in AGENT_TARGETS order. */
  servedTargets(): AgentTarget[] {
    return AGENT_TARGETS.filter((t) => this.served(t));
  }
}
