/**
 * An MSI ProductVersion is major.minor.build with major and minor at most 255 and build at most
 * 65535 (Windows Installer, "ProductVersion property"); the agent's semantic version maps onto it,
 * its pre-release and build labels dropped.
 */
export function msiProductVersion(agentVersion: string): { version: string; nextPatch: string } {
  const m = /^(\d+)\.(\d+)\.(\d+)(?:[-+].*)?$/.exec(agentVersion);
  if (!m) throw new Error(`agent version ${agentVersion} is not major.minor.patch`);
  const [major, minor, patch] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (major > 255 || minor > 255 || patch > 65534)
    throw new Error(`agent version ${agentVersion} does not fit an MSI version (255.255.65534 at most)`);
  return { version: `${major}.${minor}.${patch}`, nextPatch: `${major}.${minor}.${patch + 1}` };
}
