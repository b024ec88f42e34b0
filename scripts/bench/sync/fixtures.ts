import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serverConfigSchema } from "../../../server/config.ts";
import { createLogger } from "../../../server/logger.ts";
import { CaudalServer } from "../../../server/server.ts";
import { latestConfigMessages } from "../../../server/services/agents/deploy.ts";
import type { Payload } from "../../../shared/mqtt/topics.ts";
import { tagAlias } from "./batch-shape.ts";

/** A project as an agent sees it: its id, its agent token and its wells. */
export type BenchProject = { id: string; agentToken: string; assets: string[] };

export type SyncBenchServer = {
  server: CaudalServer;
  base: string;
  mqttUrl: string;
  /** The superadmin's access token (for the latency probe's GET /api/telemetry/{asset_id}). */
  token: string;
  stop(): Promise<void>;
  /** A project with `assets` wells and a fresh agent token. */
  project(name: string, assets: number): Promise<BenchProject>;
  /**
   * Gives every asset of the project one Modbus TCP device at `plc` with `variables` float32 tags
   * (holding registers 0, 2, 4, …), deploys, and returns the configuration message the broker
   * holds for the agent.
   */
  deployModbus(
    project: BenchProject,
    plc: { host: string; port: number },
    variables: number,
    pollIntervalMs: number,
  ): Promise<Payload<"config">>;
};

async function ask<T>(base: string, path: string, body: unknown, token?: string): Promise<T> {
  const res = await fetch(`${base}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`POST ${path}: ${res.status} ${text}`);
  return JSON.parse(text) as T;
}

/** A real CaudalServer (HTTP + embedded broker) on random ports with its own DATA_DIR, logging nothing. */
export async function startSyncBenchServer(): Promise<SyncBenchServer> {
  const dataDir = mkdtempSync(join(tmpdir(), "caudal-bench-sync-"));
  const config = serverConfigSchema.parse({
    PORT: "0",
    HOST: "127.0.0.1",
    MQTT_PORT: "0",
    DATA_DIR: dataDir,
    NODE_ENV: "test",
    LOG_LEVEL: "silent",
    TOTP_SECRET_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
  });
  const server = new CaudalServer({ config, logger: createLogger("silent") });
  await server.start();
  const base = `http://127.0.0.1:${server.port}`;
  const { token } = await ask<{ token: string }>(base, "/api/auth/setup/register", {
    email: "bench@caudal.test",
    name: "Bench",
    role: "superadmin",
    password: "bench-password-1",
  });
  return {
    server,
    base,
    mqttUrl: `mqtt://127.0.0.1:${server.broker.port}`,
    token,
    stop: async () => {
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
    project: async (name, assets) => {
      const { id } = await ask<{ id: string }>(base, "/api/edge/projects", { name }, token);
      const ids: string[] = [];
      for (let i = 0; i < assets; i++) {
        const asset = await ask<{ id: string }>(
          base,
          "/api/edge/assets",
          { project_id: id, name: `${name} well ${i}`, asset_type: "well" },
          token,
        );
        ids.push(asset.id);
      }
      const issued = await ask<{ agent_token: string }>(
        base,
        `/api/edge/projects/${id}/agent-token`,
        undefined,
        token,
      );
      return { id, agentToken: issued.agent_token, assets: ids };
    },
    deployModbus: async (project, plc, variables, pollIntervalMs) => {
      for (const [i, assetId] of project.assets.entries()) {
        const device = await ask<{ id: string }>(
          base,
          `/api/edge/assets/${assetId}/devices`,
          { name: `plc-${i}`, protocol: "modbus_tcp", host: plc.host, port: plc.port, slave_id: 1 },
          token,
        );
        for (let v = 0; v < variables; v++) {
          await ask(
            base,
            `/api/edge/devices/${device.id}/variables`,
            {
              alias: tagAlias(v),
              data_type: "float32",
              register_address: v * 2,
              unit: "psi",
              poll_interval_ms: pollIntervalMs,
            },
            token,
          );
        }
      }
      await ask(base, `/api/edge/projects/${project.id}/deploy`, undefined, token);
      const message = (await latestConfigMessages(server.context)).find(
        (m) => m.projectId === project.id,
      )?.message;
      if (!message) throw new Error("the deployment left no configuration message");
      return message;
    },
  };
}
