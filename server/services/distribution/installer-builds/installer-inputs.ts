import { createHash } from "node:crypto";
import { join } from "node:path";
import type { AgentArtifacts } from "../agent-artifacts.ts";
import { msiAgentConfig } from "../msi/agent-config.ts";
import { productWxs } from "../msi/product-wxs.ts";
import { serviceDescription, winswExeConfig, winswServiceXml } from "../msi/winsw-config.ts";

/** What an MSI is made from, besides its own enrollment code. */
export type InstallerInputs = {
  agentVersion: string;
  /** The cache key with agentVersion: equal inputs make an equal MSI. */
  inputsSha256: string;
  agentExe: { path: string; sha256: string };
  winsw: { path: string; sha256: string };
};

/**
 * The inputs of a project's MSI from the agent build in AGENT_DIST_DIR, or why there are none.
 * The hash covers the generated sources themselves (WiX, WinSW and agent configuration, the code
 * left blank) and the checksums of the files, so any change to what the MSI holds misses the cache.
 */
export function installerInputs(
  artifacts: AgentArtifacts,
  project: { id: string; name: string },
  serverUrl: string,
): InstallerInputs | { missing: string } {
  const exe = artifacts.artifact("windows-x64");
  const winsw = exe?.manifest.winsw;
  if (!exe || !winsw)
    return {
      missing: `no Windows agent build in ${artifacts.dir} (agent-windows-x64.exe and winsw.exe with manifest.json): run npm run build:agent`,
    };
  const agentVersion = exe.manifest.version;
  let wxs: string;
  try {
    wxs = productWxs({
      projectId: project.id,
      projectName: project.name,
      agentVersion,
      sources: { agentExe: "", serviceExe: "", serviceExeConfig: "", serviceXml: "", agentConfig: "" },
    });
  } catch (err) {
    return { missing: err instanceof Error ? err.message : String(err) };
  }
  const hash = createHash("sha256");
  for (const part of [
    wxs,
    winswServiceXml(serviceDescription(project.id)),
    winswExeConfig(),
    msiAgentConfig({ serverUrl, projectId: project.id, enrollmentCode: "" }),
    exe.artifact.sha256,
    winsw.sha256,
  ])
    hash.update(part).update("\0");
  return {
    agentVersion,
    inputsSha256: hash.digest("hex"),
    agentExe: { path: exe.path, sha256: exe.artifact.sha256 },
    winsw: { path: join(artifacts.dir, winsw.file), sha256: winsw.sha256 },
  };
}
