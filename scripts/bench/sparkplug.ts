import { loadavg } from "node:os";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { parseArgs } from "node:util";
import { ask } from "./ipc.ts";
import { sparkplugSite } from "./sparkplug/fixtures.ts";
import { CpuWindow, describeCpu } from "./sync/cpu-window.ts";
import { endChild, fmt, forkChild, median, say } from "./sync/measure.ts";

// `npm run bench -- sparkplug [--runs 3] [--devices 100] [--metrics 100] [--duration 10] [--warmup 3]
//   [--backlog 1000000]`
//
// Issue 11 targets, on one machine: a real CaudalServer in this process (HTTP + embedded broker,
// SQLite in a temp DATA_DIR); an agent (sparkplug/agent-load.ts) and an HMI (sparkplug/hmi-subscriber.ts,
// decoding with sparkplug-payload) in their own processes.
//   live     devices × metrics (10,000) changing every second: DDATA messages per second and the
//            latency from the agent stamping a reading to the HMI decoding it: p99 < 500 ms
//   backlog  a 1M-point backlog (lane backlog, one 5,000-point batch at a time) while live data
//            flows: live DDATA latency p99 < 1 s; the backlog reaches the HMI as historical DDATA

type SubReport = {
  seconds: number;
  messages: Record<string, number>;
  liveMetrics: number;
  p50: number;
  p99: number;
  max: number;
  historical: number;
  lastHistoricalMs: number | null;
};

type RunResult = {
  live: {
    ddataPerS: number;
    metricsPerS: number;
    p50: number;
    p99: number;
    loopP99: number;
    /** Agent publish → the server's ack (after the commit): the part of the latency before Sparkplug. */
    ackP99: number;
    cpu: string;
  };
  /** Live batches the agent could not send (8 already waiting for their ack): ingest fell behind. */
  skipped: number;
  backlog: {
    ingestS: number;
    points: number;
    historical: number;
    deliveredS: number;
    historicalPerS: number;
    ddataPerS: number;
    p50: number;
    p99: number;
    max: number;
    loopP99: number;
    ackP99: number;
    cpu: string;
  };
};

type Acks = { p50: number; p99: number };

/** The server's event loop delay over a window (it runs in this process), p99 in ms. */
function loopDelay() {
  const h = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
  return () => {
    h.disable();
    return h.percentile(99) / 1e6;
  };
}

async function oneRun(o: {
  devices: number;
  metrics: number;
  durationS: number;
  warmupS: number;
  backlog: number;
}): Promise<RunResult> {
  const site = await sparkplugSite(o.devices, o.metrics);
  const agent = forkChild("../sparkplug/agent-load.ts");
  const hmi = forkChild("../sparkplug/hmi-subscriber.ts");
  try {
    const mqttUrl = site.bench.mqttUrl;
    await ask(hmi, { type: "connect", mqttUrl, ...site.hmi, group: site.slug });
    await ask(agent, { type: "connect", mqttUrl, projectId: site.projectId, agentToken: site.agentToken });
    await ask(agent, { type: "startLive", devices: site.devices });
    await sleep(o.warmupS * 1000);

    await ask(hmi, { type: "mark" });
    await ask(agent, { type: "acks" });
    let cpu = new CpuWindow({ agent, hmi });
    let loop = loopDelay();
    await sleep(o.durationS * 1000);
    const live = await ask<SubReport>(hmi, { type: "report" });
    const liveCpu = describeCpu(cpu.end());
    const liveLoop = loop();
    const liveAcks = await ask<Acks>(agent, { type: "acks" });

    await ask(hmi, { type: "mark" });
    cpu = new CpuWindow({ agent, hmi });
    loop = loopDelay();
    const startTs = Date.now() - 3_600_000;
    const ingest = await ask<{ points: number; ms: number }>(agent, {
      type: "backlog",
      devices: site.devices,
      points: o.backlog,
      startTs,
    });
    // Until every historical value arrived, or nothing more for 15 s.
    let last = -1;
    let still = 0;
    for (;;) {
      const { historical } = await ask<{ historical: number }>(hmi, { type: "historical" });
      if (historical >= ingest.points) break;
      still = historical === last ? still + 1 : 0;
      if (still >= 30) break;
      last = historical;
      await sleep(500);
    }
    const backlog = await ask<SubReport>(hmi, { type: "report" });
    const backlogCpu = describeCpu(cpu.end());
    const backlogLoop = loop();
    const backlogAcks = await ask<Acks>(agent, { type: "acks" });
    const { skipped } = await ask<{ skipped: number }>(agent, { type: "stopLive" });
    const deliveredS = (backlog.lastHistoricalMs ?? 0) / 1000;
    return {
      skipped,
      live: {
        ddataPerS: (live.messages.DDATA ?? 0) / live.seconds,
        metricsPerS: live.liveMetrics / live.seconds,
        p50: live.p50,
        p99: live.p99,
        loopP99: liveLoop,
        ackP99: liveAcks.p99,
        cpu: liveCpu,
      },
      backlog: {
        ingestS: ingest.ms / 1000,
        points: ingest.points,
        historical: backlog.historical,
        deliveredS,
        historicalPerS: deliveredS > 0 ? backlog.historical / deliveredS : 0,
        ddataPerS: (backlog.messages.DDATA ?? 0) / backlog.seconds,
        p50: backlog.p50,
        p99: backlog.p99,
        max: backlog.max,
        loopP99: backlogLoop,
        ackP99: backlogAcks.p99,
        cpu: backlogCpu,
      },
    };
  } finally {
    await endChild(agent);
    await endChild(hmi);
    await site.bench.stop();
  }
}

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      runs: { type: "string", default: "3" },
      devices: { type: "string", default: "100" },
      metrics: { type: "string", default: "100" },
      duration: { type: "string", default: "10" },
      warmup: { type: "string", default: "3" },
      backlog: { type: "string", default: "1000000" },
    },
  });
  const o = {
    devices: Number(values.devices),
    metrics: Number(values.metrics),
    durationS: Number(values.duration),
    warmupS: Number(values.warmup),
    backlog: Number(values.backlog),
  };
  const [l1] = loadavg();
  say(`sparkplug bench: ${JSON.stringify(values)}; load average before: ${fmt(l1 ?? 0, 2)}`);
  const results: RunResult[] = [];
  for (let i = 1; i <= Number(values.runs); i++) {
    const r = await oneRun(o);
    results.push(r);
    const { live: l, backlog: b } = r;
    say(
      `run ${i} live: ${fmt(l.ddataPerS)} DDATA/s, ${fmt(l.metricsPerS)} metrics/s, ` +
        `latency p50 ${fmt(l.p50)} ms p99 ${fmt(l.p99)} ms; live ack p99 ${fmt(l.ackP99)} ms; server event loop delay p99 ${fmt(l.loopP99)} ms; ${l.cpu}`,
    );
    say(
      `run ${i} backlog: ${fmt(b.points)} points ingested in ${fmt(b.ingestS, 1)} s; ${fmt(b.historical)} ` +
        `historical values at the HMI after ${fmt(b.deliveredS, 1)} s (${fmt(b.historicalPerS)}/s), ` +
        `${fmt(b.ddataPerS)} DDATA/s; live latency meanwhile p50 ${fmt(b.p50)} ms p99 ${fmt(b.p99)} ms ` +
        `max ${fmt(b.max)} ms; live ack p99 ${fmt(b.ackP99)} ms; server event loop delay p99 ${fmt(b.loopP99)} ms; live batches the agent had to skip (ingest behind): ${fmt(r.skipped)}; ${b.cpu}`,
    );
  }
  const m = (f: (r: RunResult) => number) => median(results.map(f));
  const liveOk = m((r) => r.live.p99) < 500;
  const backlogOk = m((r) => r.backlog.p99) < 1000;
  say(
    `median of ${results.length}: live ${fmt(m((r) => r.live.ddataPerS))} DDATA/s, ` +
      `${fmt(m((r) => r.live.metricsPerS))} metrics/s, p99 ${fmt(m((r) => r.live.p99))} ms ` +
      `(target < 500: ${liveOk ? "met" : "MISSED"}); backlog ${fmt(m((r) => r.backlog.historical))} historical ` +
      `in ${fmt(
        m((r) => r.backlog.deliveredS),
        1,
      )} s, live p99 meanwhile ${fmt(m((r) => r.backlog.p99))} ms ` +
      `(target < 1000: ${backlogOk ? "met" : "MISSED"})`,
  );
}
