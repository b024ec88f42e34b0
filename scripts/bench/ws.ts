import { type ChildProcess, fork } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { serverConfigSchema } from "../../server/config.ts";
import { createLogger } from "../../server/logger.ts";
import { CaudalServer } from "../../server/server.ts";
import type { TelemetryEvent } from "../../server/services/events.ts";

// `npm run bench -- ws [--clients 1000] [--rate 150] [--duration 10] [--warmup 3] [--runs 3] [--readings 5]`
// Live stream fan-out: N WebSocket clients (in a forked process, so client and server each get a
// core) subscribed to GET /api/ws/telemetry as the superadmin, so each event goes to every client.
// The server process emits `rate` telemetry events per second on ctx.events, as the ingest path does
// after commit. Reported: messages delivered per second in total, server RSS, CPU, latency, drops.

const MB = 1024 * 1024;
const say = (line: string) => process.stdout.write(`${line}\n`);

type ClientReport = {
  type: "report";
  received: number;
  droppedNotices: number;
  droppedEvents: number;
  closes: number;
  latencies: number[];
  cpuMicros: number;
};

type RunResult = {
  delivered: number;
  expected: number;
  rssIdleMb: number;
  rssConnectedMb: number;
  rssMaxMb: number;
  heapConnectedMb: number;
  serverCpu: number;
  clientCpu: number;
  p50: number;
  p99: number;
  dropped: number;
  closes: number;
};

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, index)] ?? Number.NaN;
}

function median(values: number[]): number {
  return percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
}

function nextMessage<T extends { type: string }>(child: ChildProcess, type: T["type"]): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: { type: string; message?: string }) => {
      if (message.type === "error") {
        child.off("message", onMessage);
        reject(new Error(`bench client: ${message.message}`));
      } else if (message.type === type) {
        child.off("message", onMessage);
        resolve(message as T);
      }
    };
    child.on("message", onMessage);
  });
}

async function report(child: ChildProcess): Promise<ClientReport> {
  const next = nextMessage<ClientReport>(child, "report");
  child.send({ type: "report" });
  return next;
}

/** Emits `rate` events per second until stopped, catching up when a timer fires late. */
function emitter(server: CaudalServer, rate: number, readings: number) {
  const projectId = randomUUID();
  const assets = Array.from({ length: 20 }, () => randomUUID());
  let emitted = 0;
  const startedAt = performance.now();
  const timer = setInterval(() => {
    const due = Math.floor(((performance.now() - startedAt) / 1000) * rate) - emitted;
    const timestamp = new Date().toISOString();
    for (let i = 0; i < due; i++) {
      const event: TelemetryEvent = {
        projectId,
        assetId: assets[emitted % assets.length] ?? projectId,
        timestamp,
        readings: Array.from({ length: readings }, (_, r) => ({
          variable: `tag_${r}`,
          value: Math.round(Math.random() * 100_000) / 100,
          unit: "psi",
        })),
      };
      server.context.events.emit("telemetry", event);
      emitted++;
    }
  }, 5);
  return {
    get emitted() {
      return emitted;
    },
    stop: () => clearInterval(timer),
  };
}

async function oneRun(options: {
  clients: number;
  rate: number;
  durationS: number;
  warmupS: number;
  readings: number;
}): Promise<RunResult> {
  const dataDir = mkdtempSync(join(tmpdir(), "caudal-bench-ws-"));
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
  const child = fork(fileURLToPath(new URL("./ws/clients.ts", import.meta.url)), [], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  try {
    const setup = await fetch(`${base}/api/auth/setup/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "bench@caudal.test", name: "Bench", password: "bench-password-1" }),
    });
    const { token } = (await setup.json()) as { token: string };
    if (setup.status !== 201) throw new Error(`setup failed: ${setup.status}`);

    const rssIdle = process.memoryUsage.rss();
    const ready = nextMessage<{ type: "ready"; clients: number }>(child, "ready");
    child.send({
      type: "start",
      url: `${base.replace("http", "ws")}/api/ws/telemetry?token=${token}`,
      clients: options.clients,
    });
    await ready;
    if (server.live.clientCount !== options.clients) {
      throw new Error(`only ${server.live.clientCount} of ${options.clients} clients connected`);
    }

    // With --expose-gc, collect first so heapUsed below is the live heap of the connected clients.
    (globalThis as { gc?: () => void }).gc?.();
    const rssConnected = process.memoryUsage.rss();
    const heapConnected = process.memoryUsage().heapUsed;
    const emit = emitter(server, options.rate, options.readings);
    await sleep(options.warmupS * 1000);
    const before = await report(child);
    const emittedBefore = emit.emitted;
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    let rssMax = process.memoryUsage().rss;
    const sampler = setInterval(() => {
      rssMax = Math.max(rssMax, process.memoryUsage().rss);
    }, 200);
    await sleep(options.durationS * 1000);
    const after = await report(child);
    const elapsedS = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    const emittedDuring = emit.emitted - emittedBefore;
    clearInterval(sampler);
    emit.stop();
    await sleep(500);
    const final = await report(child);
    const latencies = after.latencies.sort((a, b) => a - b);
    return {
      delivered: (after.received - before.received) / elapsedS,
      expected: (emittedDuring * options.clients) / elapsedS,
      rssIdleMb: rssIdle / MB,
      rssConnectedMb: rssConnected / MB,
      rssMaxMb: rssMax / MB,
      heapConnectedMb: heapConnected / MB,
      serverCpu: ((cpu.user + cpu.system) / 1e6 / elapsedS) * 100,
      clientCpu: ((after.cpuMicros - before.cpuMicros) / 1e6 / elapsedS) * 100,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      dropped: final.droppedEvents,
      closes: final.closes,
    };
  } finally {
    child.kill();
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

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
    },
  });
  const options = {
    clients: Number(values.clients),
    rate: Number(values.rate),
    durationS: Number(values.duration),
    warmupS: Number(values.warmup),
    readings: Number(values.readings),
  };
  const runs = Number(values.runs);
  say(
    `ws bench: ${options.clients} clients, ${options.rate} events/s (${options.readings} readings each), ` +
      `${options.durationS} s after ${options.warmupS} s warm-up, ${runs} runs`,
  );
  const results: RunResult[] = [];
  for (let i = 0; i < runs; i++) {
    const r = await oneRun(options);
    results.push(r);
    say(
      `run ${i + 1}: delivered ${Math.round(r.delivered).toLocaleString("en")} msg/s ` +
        `(offered ${Math.round(r.expected).toLocaleString("en")}), server RSS idle ${r.rssIdleMb.toFixed(0)} MB, ` +
        `with clients ${r.rssConnectedMb.toFixed(0)} MB (V8 heap used ${r.heapConnectedMb.toFixed(0)} MB), max while streaming ${r.rssMaxMb.toFixed(0)} MB, ` +
        `CPU server ${r.serverCpu.toFixed(0)}% clients ${r.clientCpu.toFixed(0)}%, ` +
        `latency p50 ${r.p50} ms p99 ${r.p99} ms, dropped ${r.dropped}, closed ${r.closes}`,
    );
  }
  const pick = (f: (r: RunResult) => number) => median(results.map(f));
  say(
    `median: delivered ${Math.round(pick((r) => r.delivered)).toLocaleString("en")} msg/s, ` +
      `server RSS idle ${pick((r) => r.rssIdleMb).toFixed(0)} MB, with clients ${pick((r) => r.rssConnectedMb).toFixed(0)} MB, ` +
      `max ${pick((r) => r.rssMaxMb).toFixed(0)} MB, CPU server ${pick((r) => r.serverCpu).toFixed(0)}% ` +
      `clients ${pick((r) => r.clientCpu).toFixed(0)}%, latency p50 ${pick((r) => r.p50)} ms ` +
      `p99 ${pick((r) => r.p99)} ms, dropped ${pick((r) => r.dropped)}`,
  );
  const delivered = pick((r) => r.delivered);
  const rss = pick((r) => r.rssMaxMb);
  say(
    `targets: >= 100,000 msg/s ${delivered >= 100_000 ? "met" : "MISSED"}; ` +
      `RSS < 300 MB ${rss < 300 ? "met" : "MISSED"}`,
  );
}
