import { randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serverConfigSchema } from "../../../server/config.ts";
import { createLogger } from "../../../server/logger.ts";
import { CaudalServer } from "../../../server/server.ts";
import type { TelemetryEvent } from "../../../server/services/events.ts";
import { answer } from "../ipc.ts";

/*
 * The server side of `npm run bench -- ws`, in its own process as in production (`node
 * server/main.ts`), so its RSS is the server's alone. It emits telemetry events on ctx.events at a
 * set rate, as the ingest path does after each commit, and reports CPU and memory between marks.
 */

const MB = 1024 * 1024;
const dataDir = mkdtempSync(join(tmpdir(), "caudal-bench-ws-"));
let server: CaudalServer | undefined;
let emitter: NodeJS.Timeout | undefined;
let emitted = 0;
let rssMax = 0;
let sampler: NodeJS.Timeout | undefined;

function started(): CaudalServer {
  if (!server) throw new Error("server not started");
  return server;
}

/** Emits `rate` events per second, catching up when a timer fires late (as a loaded server would). */
function startEmitting(rate: number, readings: number): void {
  const events = started().context.events;
  const projectId = randomUUID();
  const assets = Array.from({ length: 20 }, () => randomUUID());
  const begin = performance.now();
  emitter = setInterval(() => {
    const due = Math.floor(((performance.now() - begin) / 1000) * rate) - emitted;
    const ts = Date.now();
    for (let i = 0; i < due; i++) {
      // One asset at one instant: one stream message.
      const assetId = assets[emitted % assets.length] ?? projectId;
      const event: TelemetryEvent = {
        source: "http",
        series: Array.from({ length: readings }, (_, r) => ({
          projectId,
          assetId,
          variable: `tag_${r}`,
          unit: "psi",
          points: [[ts, Math.round(Math.random() * 100_000) / 100]],
        })),
      };
      events.emit("telemetry", event);
      emitted++;
    }
  }, 5);
}

answer({
  async start() {
    const config = serverConfigSchema.parse({
      PORT: "0",
      HOST: "127.0.0.1",
      MQTT_PORT: "0",
      DATA_DIR: dataDir,
      NODE_ENV: "test",
      LOG_LEVEL: "silent",
      TOTP_SECRET_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
      // Unset: the server's default (from the CPU count), as deployed.
      ...(process.env.HTTP_WORKERS ? { HTTP_WORKERS: process.env.HTTP_WORKERS } : {}),
    });
    server = new CaudalServer({ config, logger: createLogger("silent") });
    await server.start();
    const base = `http://127.0.0.1:${server.port}`;
    const setup = await fetch(`${base}/api/auth/setup/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "bench@caudal.test", name: "Bench", password: "bench-password-1" }),
    });
    if (setup.status !== 201) throw new Error(`setup failed: ${setup.status}`);
    const { token } = (await setup.json()) as { token: string };
    return {
      url: `${base.replace("http", "ws")}/api/ws/telemetry?token=${token}`,
      rssMb: process.memoryUsage.rss() / MB,
    };
  },
  connected() {
    // With --expose-gc, collect first so heapUsed is the live heap of the connected clients.
    (globalThis as { gc?: () => void }).gc?.();
    const memory = process.memoryUsage();
    return { clients: started().live.clientCount, rssMb: memory.rss / MB, heapUsedMb: memory.heapUsed / MB };
  },
  emit(request) {
    startEmitting(Number(request.rate), Number(request.readings));
    return {};
  },
  mark() {
    rssMax = Math.max(rssMax, process.memoryUsage.rss());
    sampler ??= setInterval(() => {
      rssMax = Math.max(rssMax, process.memoryUsage.rss());
    }, 200);
    const cpu = process.cpuUsage();
    return {
      emitted,
      cpuMicros: cpu.user + cpu.system,
      rssMaxMb: rssMax / MB,
      stats: started().live.stats(),
    };
  },
  async stop() {
    clearInterval(emitter);
    clearInterval(sampler);
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
    return {};
  },
});
