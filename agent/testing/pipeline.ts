import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ModbusTcpServer } from "../../scripts/sim/modbus-tcp-server.ts";
import { WELL_TAGS, WellModel } from "../../scripts/sim/well-model.ts";
import { storedCount } from "../../server/testing/fixtures/telemetry-fixtures.ts";
import { TestServer } from "../../server/testing/harness.ts";
import { tableProbe } from "../../server/testing/table-probe.ts";
import {
  type AgentRunConfig,
  agentFileConfigSchema,
  configuredRunConfig,
} from "../../shared/mqtt/agent-file-config.ts";
import { type AgentOptions, CaudalAgent } from "../agent.ts";
import { AgentLog } from "../agent-log.ts";

/**
 * Test fixture for the edge pipeline: a real caudal-server (HTTP + embedded broker), a Modbus TCP
 * PLC simulator, and a project with one well, one device and the simulator's four tags, deployed.
 */
export class Pipeline {
  readonly t: TestServer;
  readonly plc: ModbusTcpServer;
  readonly well: WellModel;
  readonly projectId: string;
  readonly assetId: string;
  readonly agentToken: string;
  readonly agentDirs: string[] = [];
  #wellTimer: NodeJS.Timeout | undefined;

  private constructor(
    t: TestServer,
    plc: ModbusTcpServer,
    ids: { projectId: string; assetId: string; agentToken: string },
  ) {
    this.t = t;
    this.plc = plc;
    this.well = new WellModel(plc);
    this.projectId = ids.projectId;
    this.assetId = ids.assetId;
    this.agentToken = ids.agentToken;
  }

  /** `autoDeploy: false` for tests that deploy by hand and count versions (the project default is true). */
  static async start(options: { pollIntervalMs?: number; autoDeploy?: boolean } = {}): Promise<Pipeline> {
    const t = await TestServer.start();
    const plc = new ModbusTcpServer();
    await plc.listen(0);
    const { token } = await t.admin();
    const projectId = await t.project();
    if (options.autoDeploy === false) {
      const put = await t.request(`/api/edge/projects/${projectId}`, {
        method: "PUT",
        token,
        body: { name: "Pipeline", auto_deploy: false },
      });
      if (put.status !== 200) throw new Error(`auto_deploy off: ${put.status} ${put.text}`);
    }
    const assetId = await t.asset(projectId, "well");
    const device = await t.request<{ id: string }>(`/api/edge/assets/${assetId}/devices`, {
      token,
      body: { name: "Wellhead PLC", protocol: "modbus_tcp", host: "127.0.0.1", port: plc.port, slave_id: 1 },
    });
    if (device.status !== 201) throw new Error(`device: ${device.status} ${device.text}`);
    for (const tag of WELL_TAGS) {
      const v = await t.request(`/api/edge/devices/${device.body.id}/variables`, {
        token,
        body: {
          alias: tag.alias,
          data_type: "float32",
          register_address: tag.register,
          unit: tag.unit,
          poll_interval_ms: options.pollIntervalMs ?? 200,
        },
      });
      if (v.status !== 201) throw new Error(`variable: ${v.status} ${v.text}`);
    }
    const issued = await t.request<{ agent_token: string }>(`/api/edge/projects/${projectId}/agent-token`, {
      method: "POST",
      token,
    });
    if (issued.status !== 201) throw new Error(`agent token: ${issued.status} ${issued.text}`);
    const p = new Pipeline(t, plc, { projectId, assetId, agentToken: issued.body.agent_token });
    p.well.step(0);
    return p;
  }

  get mqttUrl(): string {
    return `mqtt://127.0.0.1:${this.t.server.broker.port}`;
  }

  async deploy(): Promise<{ id: string; version: number }> {
    const { token } = await this.t.admin();
    const res = await this.t.request<{ id: string; version: number }>(
      `/api/edge/projects/${this.projectId}/deploy`,
      {
        method: "POST",
        token,
      },
    );
    if (res.status !== 200) throw new Error(`deploy: ${res.status} ${res.text}`);
    return res.body;
  }

  async deployments(): Promise<DeploymentRow[]> {
    const { token } = await this.t.admin();
    const res = await this.t.request<DeploymentRow[]>(`/api/edge/projects/${this.projectId}/deployments`, {
      token,
    });
    if (res.status !== 200) throw new Error(`deployments: ${res.status} ${res.text}`);
    return res.body;
  }

  /** Waits until the agent reported deployment `id` with `status` (applied by default). */
  async waitDeployment(id: string, status: "applied" | "failed" = "applied"): Promise<DeploymentRow> {
    return waitFor(`deployment ${id} ${status}`, async () =>
      (await this.deployments()).find((d) => d.id === id && d.status === status),
    );
  }

  /** A fresh agent data dir, removed by stop(). */
  agentDir(): string {
    const dir = mkdtempSync(join(tmpdir(), "caudal-agent-e2e-"));
    this.agentDirs.push(dir);
    return dir;
  }

  agentConfig(dataDir?: string, overrides: Partial<AgentRunConfig> = {}): AgentRunConfig {
    return configuredRunConfig(
      agentFileConfigSchema.parse({
        version: 1,
        mqtt_url: this.mqttUrl,
        project_id: this.projectId,
        agent_token: this.agentToken,
        data_dir: dataDir ?? this.agentDir(),
        local_api_port: 0,
        ...overrides,
      }),
    );
  }

  newAgent(
    dataDir?: string,
    log = new AgentLog({ write: () => {} }),
    overrides: Partial<AgentRunConfig> = {},
    options: Partial<AgentOptions> = {},
  ): CaudalAgent {
    return new CaudalAgent(this.agentConfig(dataDir, overrides), {
      log,
      timing: { timeoutMs: 1000, minBackoffMs: 200, maxBackoffMs: 2000 },
      heartbeatMs: 500,
      ...options,
    });
  }

  /** Points of the asset stored on the server (raw rows and packed blocks), counted in SQL. */
  storedPoints(): Promise<number> {
    return storedCount(this.t, this.assetId);
  }

  /**
   * Moves the simulated well every `everyMs` (one model second per step), so every poll reads new
   * values and report-by-exception records each of them. Until stopWell(), values are constant.
   */
  moveWell(everyMs = 50): void {
    this.stopWell();
    this.#wellTimer = setInterval(() => this.well.step(1), everyMs);
  }

  stopWell(): void {
    if (this.#wellTimer) clearInterval(this.#wellTimer);
    this.#wellTimer = undefined;
  }

  /**
   * Sum of the 5-minute rollup counts of the asset, once everything committed is rolled up (as
   * readers do): equals storedPoints() unless a point was counted twice.
   */
  async rollupPoints(): Promise<number> {
    await this.t.server.telemetry.rollUpAll();
    const [row] = await tableProbe(this.t.server).query<{ n: number }>(
      "SELECT COALESCE(SUM(r.count), 0) AS n FROM telemetry_rollup_5m r JOIN telemetry_series s ON s.id = r.series_id WHERE s.asset_id = ?",
      [this.assetId],
    );
    return row?.n ?? 0;
  }

  /** Points billed to the project (usage_counters, every period). */
  async usagePoints(): Promise<number> {
    const [row] = await tableProbe(this.t.server).query<{ n: number }>(
      "SELECT COALESCE(SUM(telemetry_points), 0) AS n FROM usage_counters WHERE project_id = ?",
      [this.projectId],
    );
    return row?.n ?? 0;
  }

  /**
   * The batches the server committed for an agent (agent_batches): every seq its runs hold, in
   * ascending order (a seq held twice shows twice), and their points summed.
   */
  async agentBatches(agentId: string): Promise<{ seqs: number[]; points: number }> {
    const runs = await tableProbe(this.t.server).query<{ seq: number; last_seq: number; points: number }>(
      "SELECT seq, last_seq, points FROM agent_batches WHERE project_id = ? AND agent_id = ? ORDER BY seq",
      [this.projectId, agentId],
    );
    const seqs: number[] = [];
    for (const run of runs) for (let seq = run.seq; seq <= run.last_seq; seq++) seqs.push(seq);
    return { seqs, points: runs.reduce((n, run) => n + run.points, 0) };
  }

  async stop(): Promise<void> {
    this.stopWell();
    await this.plc.close();
    await this.t.stop();
    for (const d of this.agentDirs) rmSync(d, { recursive: true, force: true });
  }
}

export type DeploymentRow = {
  id: string;
  version: number;
  config_hash: string;
  status: "pending" | "applied" | "failed";
  error: string | null;
  created_at: string;
  updated_at: string;
  devices: number;
  variables: number;
};

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Waits until the agent's outbox is empty and it stores no new points for `quietMs` (the well
 * stopped moving), so its counters can be compared with the server's.
 */
export async function waitForDrain(
  read: () =>
    | { batches: number; stored_points: number }
    | Promise<{ batches: number; stored_points: number }>,
  quietMs = 1000,
  timeoutMs = 20_000,
): Promise<{ batches: number; stored_points: number }> {
  let last = -1;
  let since = Date.now();
  return waitFor(
    "the outbox to drain",
    async () => {
      const s = await read();
      if (s.stored_points !== last || s.batches !== 0) {
        last = s.stored_points;
        since = Date.now();
        return undefined;
      }
      return Date.now() - since >= quietMs ? s : undefined;
    },
    timeoutMs,
  );
}

export async function waitFor<T>(
  what: string,
  check: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
