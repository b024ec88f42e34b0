import packageJson from "../../../package.json" with { type: "json" };
import type { AgentBuildStatus } from "../../../shared/distribution/agent-build-status.ts";
import type { ServiceContext } from "../context.ts";

/** Anything the health check times: resolves when the dependency answered, throws otherwise. */
export type DatabaseProbe = () => void | Promise<void>;

/** The embedded MQTT broker, once it exists: up when it accepts connections. */
export type BrokerStatus = { isUp(): boolean };

/** Optional overrides and extra dependencies for GET /health (createApp's `health` dep). */
export type HealthProbes = {
  /** Defaults to the store's own probe: a real round trip to the database. */
  database?: DatabaseProbe;
  /** When given, the report gains `services.mqtt` and a down broker degrades the status. */
  broker?: BrokerStatus;
  /** When given, the report gains `agent_build`: what installers can be served, or why not yet. */
  agentBuild?: { status(): AgentBuildStatus };
};

export type ServiceStatus = { status: "ok" | "error"; latency_ms: number | null; message: string | null };

export type HealthReport = {
  status: "ok" | "degraded" | "error";
  version: string;
  timestamp: string;
  uptime_seconds: number;
  services: { database: ServiceStatus; api: ServiceStatus; mqtt?: ServiceStatus };
  agent_build?: AgentBuildStatus;
};

/** A database probe slower than this degrades the service (it still answers). */
export const SLOW_DATABASE_MS = 250;
/** A probe that has not answered by then counts as a failure. */
export const DATABASE_TIMEOUT_MS = 2000;

const VERSION = packageJson.version;

class ProbeTimeout extends Error {}

async function timed(probe: DatabaseProbe): Promise<{ latencyMs: number; error: string | null }> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      Promise.resolve().then(probe),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new ProbeTimeout()), DATABASE_TIMEOUT_MS);
        timer.unref();
      }),
    ]);
    return { latencyMs: Math.round(performance.now() - started), error: null };
  } catch (err) {
    const latencyMs = Math.round(performance.now() - started);
    if (err instanceof ProbeTimeout)
      return { latencyMs, error: `no answer within ${DATABASE_TIMEOUT_MS} ms` };
    return { latencyMs, error: err instanceof Error ? err.message : String(err) };
  } finally {
    clearTimeout(timer);
  }
}

/** How long a queued callback waits for the event loop: a blocked loop makes the whole API slow. */
async function eventLoopDelayMs(): Promise<number> {
  const started = performance.now();
  await new Promise<void>((resolve) => setImmediate(resolve));
  return Math.round(performance.now() - started);
}

/**
 * GET /health. The database is probed on every call (spec §4). Rules (the spec leaves them open):
 * error when the database cannot answer; degraded when it answers slower than SLOW_DATABASE_MS or
 * the broker is down; ok otherwise.
 */
export async function checkHealth(ctx: ServiceContext, probes: HealthProbes = {}): Promise<HealthReport> {
  const probe = probes.database ?? (() => ctx.store.probe());
  const db = await timed(probe);
  const database: ServiceStatus =
    db.error !== null
      ? { status: "error", latency_ms: db.latencyMs, message: `database unavailable: ${db.error}` }
      : {
          status: "ok",
          latency_ms: db.latencyMs,
          message: db.latencyMs > SLOW_DATABASE_MS ? `slow: over ${SLOW_DATABASE_MS} ms` : null,
        };
  const api: ServiceStatus = { status: "ok", latency_ms: await eventLoopDelayMs(), message: null };
  const services: HealthReport["services"] = { database, api };

  let degraded = database.status === "ok" && db.latencyMs > SLOW_DATABASE_MS;
  if (probes.broker) {
    const up = probes.broker.isUp();
    services.mqtt = up
      ? { status: "ok", latency_ms: null, message: null }
      : { status: "error", latency_ms: null, message: "the MQTT broker is not accepting connections" };
    degraded ||= !up;
  }
  const report: HealthReport = {
    status: database.status === "error" ? "error" : degraded ? "degraded" : "ok",
    version: VERSION,
    timestamp: ctx.clock.now().toISOString(),
    uptime_seconds: Math.floor(process.uptime()),
    services,
  };
  // Installers are not the server's health: their build never degrades the status.
  if (probes.agentBuild) report.agent_build = probes.agentBuild.status();
  return report;
}
