import { open } from "node:fs/promises";
import { type LinuxArch, linuxTarget } from "../../../shared/distribution/linux-arch.ts";
import type { AgentArtifacts } from "./agent-artifacts.ts";
import type { OpenedFile } from "./opened-file.ts";

/**
 * Opens the agent executable of `arch` for one download. The file is checked once it is open, so
 * what is streamed is the file the manifest describes even if a new build renames another over it
 * meanwhile; a file of another size (a build being copied in) is not served.
 */
export async function openLinuxBinary(artifacts: AgentArtifacts, arch: LinuxArch): Promise<OpenedFile> {
  const target = linuxTarget(arch);
  const what = `the ${arch} agent binary`;
  const found = artifacts.artifact(target);
  if (!found) throw artifacts.build.notServed([target], what);
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(found.path, "r");
  } catch {
    // Removed since the manifest was read: a build is replacing it, or it is gone.
    throw artifacts.build.notServed([target], what);
  }
  const { size } = await handle.stat();
  if (size !== found.artifact.bytes) {
    await handle.close();
    throw artifacts.build.notServed([target], what);
  }
  return {
    handle,
    bytes: size,
    sha256Hex: found.artifact.sha256,
    // The version comes from package.json; anything unusual in it stays out of the header.
    fileName: `caudal-agent-${found.manifest.version.replace(/[^A-Za-z0-9._+-]/g, "_")}-linux-${arch}`,
  };
}
