import { rmSync } from "node:fs";
import { writeHeapSnapshot } from "node:v8";
import { CaudalAgent } from "../../../agent/agent.ts";
import { AgentLog } from "../../../agent/agent-log.ts";
import type { Driver, DriverFactory } from "../../../agent/drivers/driver.ts";
import { createDriverFactory } from "../../../agent/drivers/registry.ts";
import { agentRuntimeConfigSchema } from "../../../shared/mqtt/agent-config.ts";
import { agentFileConfigSchema, configuredRunConfig } from "../../../shared/mqtt/agent-file-config.ts";
import { answer } from "../ipc.ts";

/*
 * The agent side of `npm run bench -- agent`: a real CaudalAgent in its own process (as `npm run
 * agent` runs it), polling through DevicePoller → ModbusDriver and recording through the full
 * path (report-by-exception, local alarms, outbox commit to node:sqlite). Its broker URL points at
 * a closed port, so every batch stays in the outbox as during an outage. Reports the process's
 * CPU time (all threads), its RSS and the agent's own counters, and for each device the values
 * read so far and when its last read completed, so that a rate can be taken over whole poll
 * cycles rather than a window that cuts through them.
 */

const MB = 1024 * 1024;
let agent: CaudalAgent | undefined;
let dataDir = "";
let rssMax = 0;
let warnings = 0;
let firstWarning = "";
const sampler = setInterval(() => {
  rssMax = Math.max(rssMax, process.memoryUsage.rss());
}, 200);

const reads = new Map<string, { values: number; lastAt: number }>();

/** The agent's own drivers, counting what each device's reads return. */
const countingDrivers: DriverFactory = (device, options) => {
  const inner = createDriverFactory({ pkiDir: "pki" })(device, options);
  const tally = { values: 0, lastAt: 0 };
  reads.set(device.id, tally);
  const driver: Driver = {
    get connected() {
      return inner.connected;
    },
    connect: () => inner.connect(),
    close: () => inner.close(),
    async read(variables) {
      const results = await inner.read(variables);
      tally.values += results.length;
      tally.lastAt = performance.now();
      return results;
    },
  };
  return driver;
};

function running(): CaudalAgent {
  if (!agent) throw new Error("agent not started");
  return agent;
}

async function counter(name: "polledValues" | "storedPoints", label?: string): Promise<number> {
  const metric = await running().metrics[name].get();
  return metric.values.filter((v) => !label || v.labels.quality === label).reduce((n, v) => n + v.value, 0);
}

answer({
  async start(request) {
    dataDir = String(request.dataDir);
    const config = agentRuntimeConfigSchema.parse(request.config);
    const log = new AgentLog({
      write: (line) => {
        if (!line.includes('"level":"warn"') && !line.includes('"level":"error"')) return;
        // The broker is unreachable on purpose: only other warnings matter here.
        if (line.includes('"category":"sync"')) return;
        warnings += 1;
        firstWarning ||= line.trim();
      },
    });
    agent = new CaudalAgent(
      configuredRunConfig(
        agentFileConfigSchema.parse({
          version: 1,
          // Port 1 on loopback refuses: the agent runs as if the server were unreachable.
          mqtt_url: "mqtt://127.0.0.1:1",
          project_id: config.project_id,
          agent_token: "bench-agent-token-0123456789",
          data_dir: dataDir,
          local_api_port: 0,
        }),
      ),
      { log, drivers: countingDrivers, timing: { timeoutMs: 2000, minBackoffMs: 500, maxBackoffMs: 5000 } },
    );
    await agent.start();
    await agent.applyLocalConfig(config);
    rssMax = 0;
    return {};
  },
  async mark() {
    const cpu = process.cpuUsage();
    const mark = {
      cpuMicros: cpu.user + cpu.system,
      rssMb: process.memoryUsage.rss() / MB,
      rssMaxMb: rssMax / MB,
      heapMb: process.memoryUsage().heapUsed / MB,
      memory: Object.fromEntries(
        Object.entries(process.memoryUsage()).map(([k, v]) => [k, Math.round(v / MB)]),
      ),
      polled: await counter("polledValues"),
      good: await counter("polledValues", "good"),
      stored: await counter("storedPoints"),
      warnings,
      firstWarning,
      reads: Object.fromEntries(reads),
    };
    rssMax = 0;
    return mark;
  },
  /** Writes a heap snapshot of the agent to `file` (by hand, when working on its memory). */
  snapshot(request) {
    return { file: writeHeapSnapshot(String(request.file)) };
  },
  async stop() {
    clearInterval(sampler);
    await agent?.stop();
    rmSync(dataDir, { recursive: true, force: true });
    return {};
  },
});
