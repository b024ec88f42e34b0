// zod-openapi must extend zod before the agent's shared schemas (alarm rules, payloads) are built:
// the server, started later in the same process, documents them.
import "@hono/zod-openapi";
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";
import { CaudalAgent } from "../../../agent/agent.ts";
import { AgentLog } from "../../../agent/agent-log.ts";
import { writeAgentDistFixture } from "../../../server/testing/agent-dist-fixture.ts";
import type { TestServer } from "../../../server/testing/harness.ts";
import {
  AGENT_MANIFEST_FILE,
  type AgentBuildManifest,
  WINSW_FILE,
} from "../../../shared/distribution/agent-manifest.ts";
import { agentFileConfigSchema, configuredRunConfig } from "../../../shared/mqtt/agent-file-config.ts";

/** POSTs `body` to `path` as `token` and returns the created resource's id (201 expected). */
export async function created(t: TestServer, token: string, path: string, body: unknown): Promise<string> {
  const res = await t.request<{ id: string }>(path, { token, body });
  expect(res.status, res.text).toBe(201);
  return res.body.id;
}

/** A Modbus TCP device on `assetId` with one uint16 variable per register of `registers` (alias → address). */
export async function modbusDevice(
  t: TestServer,
  token: string,
  assetId: string,
  device: { name: string; port: number },
  registers: Record<string, number>,
): Promise<string> {
  const id = await created(t, token, `/api/edge/assets/${assetId}/devices`, {
    name: device.name,
    protocol: "modbus_tcp",
    host: "127.0.0.1",
    port: device.port,
    slave_id: 1,
  });
  for (const [alias, register] of Object.entries(registers)) {
    await created(t, token, `/api/edge/devices/${id}/variables`, {
      alias,
      data_type: "uint16",
      register_address: register,
      unit: "psi",
      poll_interval_ms: 1000,
    });
  }
  return id;
}

/** A project whose changes wait for a deployment (auto_deploy off), with a well. */
export async function manualProject(t: TestServer, token: string, name: string) {
  const projectId = await created(t, token, "/api/edge/projects", { name, auto_deploy: false });
  const wellId = await created(t, token, "/api/edge/assets", {
    project_id: projectId,
    name: "Pozo 7",
    asset_type: "well",
  });
  return { projectId, wellId };
}

/**
 * The project's agent, running in this process against the test server's broker (as the agent's
 * own end-to-end tests run it), with a heartbeat every 500 ms. Issues the project's agent token.
 */
export async function startAgent(t: TestServer, token: string, projectId: string) {
  const issued = await t.request<{ agent_token: string }>(`/api/edge/projects/${projectId}/agent-token`, {
    method: "POST",
    token,
  });
  expect(issued.status, issued.text).toBe(201);
  const dataDir = mkdtempSync(join(tmpdir(), "caudal-console-agent-"));
  const config = configuredRunConfig(
    agentFileConfigSchema.parse({
      version: 1,
      mqtt_url: `mqtt://127.0.0.1:${t.server.broker.port}`,
      project_id: projectId,
      agent_token: issued.body.agent_token,
      data_dir: dataDir,
      local_api_port: 0,
    }),
  );
  const agent = new CaudalAgent(config, {
    log: new AgentLog({ write: () => {} }),
    timing: { timeoutMs: 1000, minBackoffMs: 200, maxBackoffMs: 2000 },
    heartbeatMs: 500,
  });
  await agent.start();
  return {
    agent,
    stop: async () => {
      await agent.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * What the agents and configuration pages show for `projectId` when no agent ran: a Modbus
 * device with two variables on `assetId`, and a log line.
 */
export async function seedAgentPages(t: TestServer, token: string, projectId: string, assetId: string) {
  await modbusDevice(t, token, assetId, { name: "PLC tanque", port: 5020 }, { level: 0, temperature: 1 });
  const log = await t.request("/api/edge/agents/logs", {
    token,
    body: {
      project_id: projectId,
      level: "warn",
      message: "device PLC tanque: connect ECONNREFUSED",
      category: "device",
    },
  });
  expect(log.status, log.text).toBe(201);
}

/**
 * An AGENT_DIST_DIR as writeAgentDistFixture makes it, plus a stand-in WinSW in its manifest, so
 * the server's MSI builds run wixl for real (with random bytes for the executables: wixl packs
 * files, it does not run them).
 */
export function agentDistWithWinsw(dir: string, bytes = 40_000): AgentBuildManifest {
  const manifest = writeAgentDistFixture(dir, { bytes });
  const winsw = randomBytes(bytes);
  writeFileSync(join(dir, WINSW_FILE), winsw);
  const withWinsw: AgentBuildManifest = {
    ...manifest,
    winsw: { file: WINSW_FILE, bytes, sha256: createHash("sha256").update(winsw).digest("hex") },
  };
  writeFileSync(join(dir, AGENT_MANIFEST_FILE), `${JSON.stringify(withWinsw, null, 2)}\n`);
  return withWinsw;
}
