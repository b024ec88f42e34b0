import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { CaudalApi } from "./api-client.ts";
import { type DemoCredentials, ensureDemoAccount } from "./demo-account.ts";
import { ensureAgentConfig } from "./demo-agent.ts";
import { cancelDemoInvoices } from "./demo-billing.ts";
import { ensureDemoProject, type Simulator } from "./demo-project.ts";

export type DemoOptions = {
  /** Where this machine reaches the server's HTTP API. */
  baseUrl: string;
  /** The server's DATA_DIR, absolute: the demo's files live beside its database. */
  dataDir: string;
  /** How the agent reaches the broker. */
  mqttUrl: string;
  sim: Simulator;
  agentLocalApiPort: number;
  signal?: AbortSignal;
};

export type DemoSetup = {
  credentials: DemoCredentials;
  /** True on the run that created the account: the only time its password is printed. */
  accountCreated: boolean;
  credentialsFile: string;
  /** The demo account's session, for start.ts's own checks; never printed. */
  accessToken: string;
  projectId: string;
  assetIds: { well: string; tank: string; separator: string };
  agentConfigFile: string;
  agentTokenIssued: boolean;
  /** The deployment made by this run, or null when the agent already has the current configuration. */
  deployedVersion: number | null;
};

export type DemoResult = { ok: true; setup: DemoSetup } | { ok: false; reason: string };

const deploymentList = z.array(z.object({ version: z.number(), status: z.string() }));
const deployment = z.object({ version: z.number() });

/**
 * First run: the demo account, the "Demo field" project, the agent's token and config file, and a
 * deployment. The demo project's pending invoices are cancelled at every run: it is not billed. Later runs reuse all of it (the account, the project, the token) and deploy again
 * only when something had to be added or changed.
 */
export async function provisionDemo(o: DemoOptions): Promise<DemoResult> {
  const api = new CaudalApi(o.baseUrl, o.signal);
  const credentialsFile = join(o.dataDir, "demo.json");
  const agentDir = join(o.dataDir, "agent");
  mkdirSync(agentDir, { recursive: true, mode: 0o700 });

  const account = await ensureDemoAccount(api, credentialsFile);
  if (!account.ok) return account;
  api.token = account.token;
  const project = await ensureDemoProject(api, o.sim);
  await cancelDemoInvoices(api, project.projectId);

  const agentConfigFile = join(agentDir, "agent.json");
  const agent = await ensureAgentConfig(api, agentConfigFile, {
    mqtt_url: o.mqttUrl,
    project_id: project.projectId,
    data_dir: agentDir,
    local_api_host: "127.0.0.1",
    local_api_port: o.agentLocalApiPort,
    local_api_hostnames: [],
    buffer_max_mb: 256,
  });

  const history = await api.call(
    "GET",
    `/api/edge/projects/${project.projectId}/deployments`,
    200,
    deploymentList,
  );
  const newest = history[0];
  let deployedVersion: number | null = null;
  if (project.changed || !newest || newest.status === "failed") {
    deployedVersion = (
      await api.call("POST", `/api/edge/projects/${project.projectId}/deploy`, 200, deployment)
    ).version;
  }

  return {
    ok: true,
    setup: {
      credentials: account.credentials,
      accountCreated: account.created,
      credentialsFile,
      accessToken: account.token,
      projectId: project.projectId,
      assetIds: project.assetIds,
      agentConfigFile,
      agentTokenIssued: agent.issued,
      deployedVersion,
    },
  };
}
