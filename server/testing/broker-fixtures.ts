import { randomUUID } from "node:crypto";
import mqtt, { type IClientOptions, type MqttClient } from "mqtt";
import type { Credentials } from "../broker/mosquitto-clients.ts";
import type { TestServer } from "./harness.ts";

/** Test support for the broker's tests: projects with an agent token, waiting, payloads. */

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export async function until(
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs = 8_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

export type AgentProject = { id: string; asset: string; agent: Credentials };

/** A project with one asset and an issued agent token. */
export async function agentProject(t: TestServer): Promise<AgentProject> {
  const id = await t.project();
  const asset = await t.asset(id);
  const issued = await t.request<{ agent_token: string }>(`/api/edge/projects/${id}/agent-token`, {
    method: "POST",
    token: (await t.admin()).token,
  });
  return { id, asset, agent: { username: `agent:${id}`, password: issued.body.agent_token } };
}

export const heartbeat = (marker: string) =>
  JSON.stringify({
    agent_id: randomUUID(),
    agent_version: marker,
    uptime_seconds: 1,
    devices: [],
    buffer: { batches: 0, points: 0, oldest_ts: null, dropped_batches: 0 },
    config: { version: null, hash: null },
  });

/** A connected npm `mqtt` client that never reconnects on its own. */
export function connectMqtt(port: number, c: Credentials, options: IClientOptions = {}): Promise<MqttClient> {
  return mqtt.connectAsync(`mqtt://127.0.0.1:${port}`, {
    username: c.username,
    password: c.password,
    reconnectPeriod: 0,
    connectTimeout: 5_000,
    ...options,
  });
}

/** Resolves when the client's connection closes. */
export function closed(client: MqttClient): Promise<void> {
  return new Promise((resolve) => {
    if (!client.connected) resolve();
    else client.once("close", () => resolve());
  });
}

/** The user id and session id inside an access token (a JWT), read without verifying it. */
export function claimsOf(token: string): { sub: string; sid: string } {
  const body = token.split(".")[1] ?? "";
  return JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as { sub: string; sid: string };
}
