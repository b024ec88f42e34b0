import { open } from "node:fs/promises";
import { type LinuxArch, linuxTarget } from "../../../shared/distribution/linux-arch.ts";
import { AppError } from "../../errors.ts";
import type { AgentArtifacts } from "./agent-artifacts.ts";
import type { OpenedFile } from "./opened-file.ts";

/** Seconds a client waits before asking again for a binary that is not (or not fully) there. */
export const NOT_BUILT_RETRY_SECONDS = 60;

export function agentNotBuilt(message: string): AppError {
  return new AppError("AgentNotBuilt", message, {
    retryAfterSeconds: NOT_BUILT_RETRY_SECONDS,
  });
}

/**
 * Opens the agent executable of `arch` for one download. The file is checked once it is open, so
 * what is streamed is the file the manifest describes even if a new build renames another over it
 * meanwhile; a file of another size (a build being copied in) is not served.
 */
export async function openLinuxBinary(artifacts: AgentArtifacts, arch: LinuxArch): Promise<OpenedFile> {
  const found = artifacts.artifact(linuxTarget(arch));
  if (!found)
    throw agentNotBuilt(
      `no ${arch} agent binary has been built on this server; an administrator runs npm run build:agent`,
    );
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(found.path, "r");
  } catch {
    throw agentNotBuilt(`the ${arch} agent binary is being replaced; retry shortly`);
  }
  const { size } = await handle.stat();
  if (size !== found.artifact.bytes) {
    await handle.close();
    throw agentNotBuilt(`the ${arch} agent binary is being replaced; retry shortly`);
  }
  return {
    handle,
    bytes: size,
    sha256Hex: found.artifact.sha256,
    // The version comes from package.json; anything unusual in it stays out of the header.
    fileName: `caudal-agent-${found.manifest.version.replace(/[^A-Za-z0-9._+-]/g, "_")}-linux-${arch}`,
  };
}
