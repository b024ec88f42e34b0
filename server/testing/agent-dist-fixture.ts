import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  AGENT_MANIFEST_FILE,
  AGENT_TARGETS,
  type AgentBuildManifest,
  type AgentTarget,
  agentArtifactFile,
} from "../../shared/distribution/agent-manifest.ts";

/**
 * A small stand-in for `npm run build:agent`'s output in `dir`: random bytes under each target's
 * file name and a manifest with their real sizes and SHA-256s. For tests of the HTTP surface
 * (downloads, ranges, install scripts' checksums); tests that run an agent use builtAgentBinaries().
 */
export function writeAgentDistFixture(
  dir: string,
  options: { targets?: readonly AgentTarget[]; bytes?: number } = {},
): AgentBuildManifest {
  mkdirSync(dir, { recursive: true });
  const artifacts = (options.targets ?? AGENT_TARGETS).map((target) => {
    const file = agentArtifactFile(target);
    const content = randomBytes(options.bytes ?? 300_000);
    writeFileSync(join(dir, file), content, { mode: 0o755 });
    return {
      target,
      file,
      bytes: content.length,
      sha256: createHash("sha256").update(content).digest("hex"),
    };
  });
  const manifest: AgentBuildManifest = {
    version: "1.0.0-fixture",
    commit: "0123456789ab",
    built_at: new Date().toISOString(),
    node_version: "24.21.0",
    inputs_sha256: "0".repeat(64),
    artifacts,
  };
  writeFileSync(join(dir, AGENT_MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}
