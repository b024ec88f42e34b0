import { LINUX_ARCHES, linuxTarget } from "../../../shared/distribution/linux-arch.ts";
import { issueEnrollmentCode } from "../agents/enrollment-codes.ts";
import { type InstallerRequest, installerServerUrl } from "../agents/public-urls.ts";
import type { AuthContext } from "../auth/auth-context.ts";
import type { ServiceContext } from "../context.ts";
import { visibleProject } from "../field/lookup.ts";
import type { AgentArtifacts } from "./agent-artifacts.ts";
import { installFiles, renderTemplate } from "./install-template.ts";

/** Where the script's agent keeps its store and its token; the unit may write only there. */
export const AGENT_DATA_DIR = "/var/lib/caudal-agent";

/**
 * The project's Linux install script: a POSIX sh script with the server's URL, the project, the
 * SHA-256 of each built Linux binary, and a fresh one-time enrollment code (audited as issued by
 * the caller) that both downloads the binary and enrolls the agent. An architecture that was not
 * built gets an empty checksum, and the script says so on such a machine.
 */
export async function linuxInstallScript(
  ctx: ServiceContext,
  auth: AuthContext,
  artifacts: AgentArtifacts,
  projectId: string,
  request: InstallerRequest,
): Promise<string> {
  await visibleProject(ctx.store.field, auth, projectId);
  const built = LINUX_ARCHES.map((arch) => ({ arch, found: artifacts.artifact(linuxTarget(arch)) }));
  const manifest = built.find((b) => b.found)?.found?.manifest;
  if (!manifest) throw artifacts.build.notServed(LINUX_ARCHES.map(linuxTarget), "the Linux agent binary");
  const files = installFiles();
  // Only once the script can be made: a refused request leaves no unused code behind.
  // Before the code is issued: a script refused for its address leaves no unused code behind.
  const serverUrl = installerServerUrl(ctx.config, request);
  const issued = await issueEnrollmentCode(ctx, auth, projectId, { purpose: "linux_script" });
  const sha256 = (arch: string) => built.find((b) => b.arch === arch)?.found?.artifact.sha256 ?? "";
  const config = {
    version: 1,
    server_url: serverUrl,
    project_id: projectId,
    enrollment_code: issued.code,
    data_dir: AGENT_DATA_DIR,
  };
  return renderTemplate(
    files.template,
    {
      CAUDAL_SERVER_URL: serverUrl,
      CAUDAL_PROJECT_ID: projectId,
      CAUDAL_ENROLLMENT_CODE: issued.code,
      CAUDAL_ENROLLMENT_EXPIRES_AT: issued.expires_at,
      CAUDAL_AGENT_VERSION: `${manifest.version} (commit ${manifest.commit})`,
      CAUDAL_SHA256_X86_64: sha256("x86_64"),
      CAUDAL_SHA256_AARCH64: sha256("aarch64"),
    },
    { CAUDAL_AGENT_CONFIG: JSON.stringify(config, null, 2), CAUDAL_AGENT_UNIT: files.unit },
  );
}
