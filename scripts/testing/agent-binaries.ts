import type { AgentBuildManifest } from "../../shared/distribution/agent-manifest.ts";
import { buildAgentBinaries, DEFAULT_AGENT_DIST } from "../build/agent-binaries.ts";

/**
 * The single executables for tests: `npm run build:agent`'s output, built when missing or stale.
 * Test files run in parallel processes: the build locks its output folder (build-lock.ts), so the
 * others wait for it and then find the build up to date.
 */
export async function builtAgentBinaries(): Promise<{ dir: string; manifest: AgentBuildManifest }> {
  const manifest = await buildAgentBinaries({
    log: (line) => process.stderr.write(`build:agent: ${line}\n`),
  });
  return { dir: DEFAULT_AGENT_DIST, manifest };
}
