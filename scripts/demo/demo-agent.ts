import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import mqtt from "mqtt";
import { z } from "zod";
import { type AgentFileConfig, agentFileConfigSchema } from "../../shared/mqtt/agent-file-config.ts";
import type { CaudalApi } from "./api-client.ts";

// [MQTT-3.2.2-3] CONNACK return code 4: bad user name or password.
const BAD_CREDENTIALS = 4;

/**
 * Whether the broker accepts `token` as the project's agent token. Only a hash is stored on the
 * server, so the one way to test a kept token is to connect with it, as the agent would. It runs
 * before the demo's agent starts: the broker keeps one connection per agent, so a running agent
 * would be replaced for a moment (it reconnects).
 */
export async function brokerAcceptsAgentToken(
  mqttUrl: string,
  projectId: string,
  token: string,
): Promise<boolean> {
  try {
    const client = await mqtt.connectAsync(
      mqttUrl,
      {
        clientId: `caudal-start-check-${randomBytes(4).toString("hex")}`,
        username: `agent:${projectId}`,
        password: token,
        clean: true,
        reconnectPeriod: 0,
        connectTimeout: 5_000,
      },
      false,
    );
    await client.endAsync();
    return true;
  } catch (err) {
    if ((err as { code?: unknown }).code === BAD_CREDENTIALS) return false;
    throw err;
  }
}

/** The file config the agent gets, apart from its token. */
export type AgentSettings = Omit<
  AgentFileConfig,
  "agent_token" | "enrollment_code" | "version" | "server_url"
> & {
  mqtt_url: string;
};

const issued = z.object({ agent_token: z.string().min(16) });

/**
 * Keeps the agent token of an existing agent.json when it is still the project's token (a second
 * `npm start` reuses it); otherwise issues one, which revokes any older token. Writes the file
 * atomically with mode 0600: it holds the token.
 */
export async function ensureAgentConfig(
  api: CaudalApi,
  path: string,
  settings: AgentSettings,
): Promise<{ config: AgentFileConfig; issued: boolean }> {
  let token: string | undefined;
  if (existsSync(path)) {
    const previous = agentFileConfigSchema.safeParse(safeParseJson(readFileSync(path, "utf8")));
    if (
      previous.success &&
      previous.data.project_id === settings.project_id &&
      previous.data.agent_token !== undefined &&
      (await brokerAcceptsAgentToken(settings.mqtt_url, settings.project_id, previous.data.agent_token))
    ) {
      token = previous.data.agent_token;
    }
  }
  const fresh = token === undefined;
  if (token === undefined) {
    token = (await api.call("POST", `/api/edge/projects/${settings.project_id}/agent-token`, 201, issued))
      .agent_token;
  }
  const config = agentFileConfigSchema.parse({ version: 1, ...settings, agent_token: token });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  renameSync(tmp, path);
  return { config, issued: fresh };
}

function safeParseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
