import { type ChildProcess, fork } from "node:child_process";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { SERVER_NODE_OPTIONS } from "../../server/node-options.ts";
import { ask } from "./ipc.ts";

// `npm run bench -- ws [--clients 1000] [--rate 150] [--duration 10] [--warmup 3] [--runs 3] [--readings 5]`
// Live stream fan-out. Three processes: this one only orchestrates; ws/server.ts runs a real
// caudal-server and emits `rate` telemetry events per second on ctx.events (as the ingest path does
// after commit); ws/clients.ts holds N WebSocket clients subscribed to GET /api/ws/telemetry as the
// superadmin, so every event goes to every client. Server and clients each get a core. Each run
// starts fresh processes. Reported: messages delivered per second in total, server RSS and CPU,
// delivery latency, drops.

const say = (line: string) => process.stdout.write(`${line}\n`);

type ServerMark = { emitted: number; cpuMicros: number; rssMaxMb: number };
type ClientMark = {
  received: number;
  droppedEvents: number;
  closes: number;
  latencies: number[];
  cpuMicros: number;
};

type RunResult = {
  delivered: number;
  offered: number;
  rssIdleMb: number;
  rssConnectedMb: number;
  heapConnectedMb: number;
  rssMaxMb: number;
  serverCpu: number;
  clientCpu: number;
  p50: number;
  p99: number;
  dropped: number;
  closes: number;
};

type Options = { clients: number; rate: number; durationS: number; warmupS: number; readings: number };

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, index)] ?? Number.NaN;
}

const median = (values: number[]) =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );

function child(file: string, execArgv: string[] = []): ChildProcess {
  return fork(fileURLToPath(new URL(file, import.meta.url)), [], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    execArgv,
  });
}

/** Disconnects a child (it exits by itself, flushing e.g. a --cpu-prof profile); kills it if it lingers. */
function quit(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => proc.kill(), 5000);
    proc.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    if (proc.connected) proc.disconnect();
    else proc.kill();
  });
}

async function oneRun(options: Options, gc: boolean): Promise<RunResult> {
  // Node's options as production runs the server (server/node-options.ts).
  const server = child("./ws/server.ts", [SERVER_NODE_OPTIONS, ...(gc ? ["--expose-gc"] : [])]);
  const clients = child("./ws/clients.ts");
  try {
    const { url, rssMb: rssIdleMb } = await ask<{ url: string; rssMb: number }>(server, { type: "start" });
    await ask(clients, { type: "connect", url, clients: options.clients });
    const connected = await ask<{ clients: number; rssMb: number; heapUsedMb: number }>(server, {
      type: "connected",
    });
    if (connected.clients !== options.clients) {
      throw new Error(`only ${connected.clients} of ${options.clients} clients connected`);
    }
    await ask(server, { type: "emit", rate: options.rate, readings: options.readings });
    await sleep(options.warmupS * 1000);
    const mark = () =>
      Promise.all([ask<ServerMark>(server, { type: "mark" }), ask<ClientMark>(clients, { type: "mark" })]);
    const [s0, c0] = await mark();
    const started = performance.now();
    await sleep(options.durationS * 1000);
    const [s1, c1] = await mark();
    const elapsedS = (performance.now() - started) / 1000;
    const latencies = c1.latencies.sort((a, b) => a - b);
    return {
      delivered: (c1.received - c0.received) / elapsedS,
      offered: ((s1.emitted - s0.emitted) * options.clients) / elapsedS,
      rssIdleMb,
      rssConnectedMb: connected.rssMb,
      heapConnectedMb: connected.heapUsedMb,
      rssMaxMb: s1.rssMaxMb,
      serverCpu: ((s1.cpuMicros - s0.cpuMicros) / 1e6 / elapsedS) * 100,
      clientCpu: ((c1.cpuMicros - c0.cpuMicros) / 1e6 / elapsedS) * 100,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      dropped: c1.droppedEvents,
      closes: c1.closes,
    };
  } finally {
    await ask(server, { type: "stop" }).catch(() => undefined);
    await Promise.all([server, clients].map(quit));
  }
}

const n = (v: number) => Math.round(v).toLocaleString("en");

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      clients: { type: "string", default: "1000" },
      rate: { type: "string", default: "150" },
      duration: { type: "string", default: "10" },
      warmup: { type: "string", default: "3" },
      runs: { type: "string", default: "3" },
      readings: { type: "string", default: "5" },
      // Collects garbage before the "with clients" sample, to show the live heap those clients hold.
      gc: { type: "boolean", default: false },
    },
  });
  const options: Options = {
    clients: Number(values.clients),
    rate: Number(values.rate),
    durationS: Number(values.duration),
    warmupS: Number(values.warmup),
    readings: Number(values.readings),
  };
  const runs = Number(values.runs);
  say(
    `ws bench: ${options.clients} clients, ${options.rate} events/s of ${options.readings} readings ` +
      `(${n(options.clients * options.rate)} msg/s offered), ${options.durationS} s after ` +
      `${options.warmupS} s warm-up, ${runs} runs`,
  );
  const results: RunResult[] = [];
  for (let i = 0; i < runs; i++) {
    const r = await oneRun(options, values.gc);
    results.push(r);
    say(
      `run ${i + 1}: delivered ${n(r.delivered)} msg/s (offered ${n(r.offered)}); server RSS idle ` +
        `${r.rssIdleMb.toFixed(0)} MB, with clients ${r.rssConnectedMb.toFixed(0)} MB (heap used ` +
        `${r.heapConnectedMb.toFixed(0)} MB), max ${r.rssMaxMb.toFixed(0)} MB; CPU server ` +
        `${r.serverCpu.toFixed(0)}%, clients ${r.clientCpu.toFixed(0)}%; latency p50 ${r.p50} ms, ` +
        `p99 ${r.p99} ms; dropped ${r.dropped}; closed ${r.closes}`,
    );
  }
  const pick = (f: (r: RunResult) => number) => median(results.map(f));
  const delivered = pick((r) => r.delivered);
  const rss = pick((r) => r.rssMaxMb);
  say(
    `median: delivered ${n(delivered)} msg/s; server RSS idle ${pick((r) => r.rssIdleMb).toFixed(0)} MB, ` +
      `with clients ${pick((r) => r.rssConnectedMb).toFixed(0)} MB, max ${rss.toFixed(0)} MB; CPU server ` +
      `${pick((r) => r.serverCpu).toFixed(0)}%, clients ${pick((r) => r.clientCpu).toFixed(0)}%; latency ` +
      `p50 ${pick((r) => r.p50)} ms, p99 ${pick((r) => r.p99)} ms; dropped ${pick((r) => r.dropped)}`,
  );
  say(
    `targets: >= 100,000 msg/s ${delivered >= 100_000 ? "met" : "MISSED"}; ` +
      `server RSS < 300 MB ${rss < 300 ? "met" : `MISSED by ${(rss - 300).toFixed(0)} MB`}`,
  );
}
