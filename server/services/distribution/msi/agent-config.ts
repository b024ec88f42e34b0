/**
 * The agent configuration an MSI installs (shared/mqtt/agent-file-config.ts, format version 1):
 * no long-lived secret, only the build's one-time enrollment code, which the agent trades at
 * server_url for its token on its first start. No mqtt_url: enrollment names the broker.
 */
export type MsiAgentConfig = {
  version: 1;
  server_url: string;
  project_id: string;
  enrollment_code: string;
  data_dir: string;
};

/** Relative to the service's working directory, the install folder (winsw-config.ts). */
export const MSI_DATA_DIR = "data";

export function msiAgentConfig(o: { serverUrl: string; projectId: string; enrollmentCode: string }): string {
  const config: MsiAgentConfig = {
    version: 1,
    server_url: o.serverUrl,
    project_id: o.projectId,
    enrollment_code: o.enrollmentCode,
    data_dir: MSI_DATA_DIR,
  };
  return `${JSON.stringify(config, null, 2)}\n`;
}
