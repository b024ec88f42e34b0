import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import {
  AGENT_MANIFEST_FILE,
  type AgentArtifact,
  type AgentBuildManifest,
  type AgentTarget,
  agentBuildManifestSchema,
} from "../../../shared/distribution/agent-manifest.ts";

/**
 * What `npm run build:agent` left in AGENT_DIST_DIR. The server only reads it: it never builds an
 * executable itself. The manifest is re-read when its file changes (a new build while running).
 */
export class AgentArtifacts {
  readonly dir: string;
  #cached: { mtimeMs: number; manifest: AgentBuildManifest | null } | undefined;

  constructor(dir: string) {
    this.dir = dir;
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
}
