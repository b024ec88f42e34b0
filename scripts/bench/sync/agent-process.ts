import { CaudalAgent } from "../../../agent/agent.ts";
import { AgentLog } from "../../../agent/agent-log.ts";
import { AgentStore } from "../../../agent/store/agent-store.ts";
import { MAX_BATCH_POINTS } from "../../../agent/store/outbox.ts";
import { agentFileConfigSchema, configuredRunConfig } from "../../../shared/mqtt/agent-file-config.ts";
import type { Payload } from "../../../shared/mqtt/topics.ts";
import { answer } from "../ipc.ts";
import { mergedBatch } from "./batch-shape.ts";
import { asRequest } from "./ipc-request.ts";

/*
 * The agent side of `npm run bench -- sync` phase "drain", in its own process as in production
 * (`node agent/main.ts`). "prefill" writes an outage's worth of points into the agent's own store
 * (AgentStore/Outbox, the path the pollers use while the link is down, in the same merged shape:
 * every series of the site with a run of 1 Hz points per batch) and the configuration it runs;
 * "drain" starts a real CaudalAgent on that store, which polls the Modbus simulator live and syncs
 * over MQTT, and reports when the last prefilled batch has been acknowledged.
 */

export type PrefillRequest = {
  type: "prefill";
  dataDir: string;
  config: Payload<"config">;
  assets: string[];
  variables: number;
  points: number;
  /** The newest backlog timestamp; the outage runs back from here at 1 Hz per series. */
  endTs: number;
};

export type PrefillReport = {
  type: "prefill:ok";
  batches: number;
  points: number;
  lastSeq: number;
  ms: number;
};

export type DrainRequest = {
  type: "drain";
  dataDir: string;
  mqttUrl: string;
  projectId: string;
  agentToken: string;
  lastSeq: number;
  backlogPoints: number;
  /** Keep polling and syncing live this long after the drain (steady-state latency). */
  afterMs: number;
  /** Give up after this long. */
  timeoutMs: number;
};

export type DrainReport = {
  type: "drain:ok";
  /** epoch ms: agent start, broker connected, last prefilled batch acknowledged. */
  startedAt: number;
  connectedAt: number;
  drainedAt: number;
  /** (epoch ms, prefilled points still queued) every second. */
  progress: [number, number][];
  ackedBatches: number;
  stats: { batches: number; points: number; storedPoints: number; droppedBatches: number };
  cpuPercent: number;
};

const quiet = new AgentLog({ write: () => {} });

function prefill(r: PrefillRequest): Omit<PrefillReport, "type"> {
  const started = performance.now();
  const store = new AgentStore(r.dataDir, { maxBytes: 4 * 1024 ** 3, onDrop: () => {} });
  store.open();
  try {
    store.saveAppliedConfig({
      deploymentId: r.config.deployment_id,
      version: r.config.version,
      hash: r.config.hash,
      config: r.config.config,
      appliedAt: Date.now(),
    });
    const series = r.assets.length * r.variables;
    const perBatch = Math.max(1, Math.floor(MAX_BATCH_POINTS / series));
    const seconds = Math.ceil(r.points / series);
    let ts = r.endTs - seconds * 1000;
    let points = 0;
    let batches = 0;
    let lastSeq = 0;
    while (points < r.points) {
      const steps = Math.min(perBatch, Math.ceil((r.points - points) / series));
      const body = mergedBatch(r.assets, r.variables, ts, steps);
      ts += steps * 1000;
      points += steps * series;
      batches += 1;
      lastSeq = store.outbox.append(body, Date.now(), true);
    }
    return { batches, points, lastSeq, ms: performance.now() - started };
  } finally {
    store.close();
  }
}

async function drain(r: DrainRequest): Promise<Omit<DrainReport, "type">> {
  const config = agentFileConfigSchema.parse({
    version: 1,
    mqtt_url: r.mqttUrl,
    project_id: r.projectId,
    agent_token: r.agentToken,
    data_dir: r.dataDir,
    local_api_port: 0,
    buffer_max_mb: 4096,
  });
  const agent = new CaudalAgent(configuredRunConfig(config), { log: quiet });
  const cpuBefore = process.cpuUsage();
  const startedAt = Date.now();
  await agent.start();
  let connectedAt = 0;
  let drainedAt = 0;
  const progress: [number, number][] = [];
  try {
    const outbox = agent.store.outbox;
    let lastProgress = 0;
    while (drainedAt === 0) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      const now = Date.now();
      if (connectedAt === 0 && agent.sync?.connected) connectedAt = now;
      const oldest = outbox.seqsAfter(0, 1)[0];
      if (oldest === undefined || oldest > r.lastSeq) drainedAt = now;
      else if (now - lastProgress >= 1000) {
        lastProgress = now;
        // Prefilled batches hold MAX_BATCH_POINTS each but the newest, which may also hold live points.
        const queued = outbox.seqsAfter(oldest - 1, 1_000_000).filter((s) => s <= r.lastSeq).length;
        progress.push([now, Math.min(r.backlogPoints, queued * MAX_BATCH_POINTS)]);
      }
      if (now - startedAt > r.timeoutMs) throw new Error(`backlog not drained in ${r.timeoutMs / 1000} s`);
    }
    await new Promise((resolve) => setTimeout(resolve, r.afterMs));
    const cpu = process.cpuUsage(cpuBefore);
    const s = outbox.stats();
    return {
      startedAt,
      connectedAt,
      drainedAt,
      progress,
      ackedBatches: agent.sync?.ackedBatches ?? 0,
      stats: {
        batches: s.batches,
        points: s.points,
        storedPoints: s.storedPoints,
        droppedBatches: s.droppedBatches,
      },
      cpuPercent: ((cpu.user + cpu.system) / 1000 / (Date.now() - startedAt)) * 100,
    };
  } finally {
    await agent.stop();
  }
}

answer({
  prefill: (request) => prefill(asRequest<PrefillRequest>(request)),
  drain: (request) => drain(asRequest<DrainRequest>(request)),
});
