import { join } from "node:path";
import type { LocalLink } from "../shared/agent-local-api.ts";
import { type AgentRuntimeConfig, configHash } from "../shared/mqtt/agent-config.ts";
import type { AgentRunConfig } from "../shared/mqtt/agent-file-config.ts";
import type { Payload } from "../shared/mqtt/topics.ts";
import { readingInRange } from "../shared/telemetry-limits.ts";
import type { AgentLog } from "./agent-log.ts";
import { type AgentMetrics, createAgentMetrics } from "./agent-metrics.ts";
import type { DriverFactory } from "./drivers/driver.ts";
import { createDriverFactory } from "./drivers/registry.ts";
import { LocalApi } from "./local-api.ts";
import { browseDevice } from "./runtime/browse.ts";
import { DevicePoller, type PolledValue } from "./runtime/device-poller.ts";
import { ExceptionFilter } from "./runtime/exception-filter.ts";
import { LastValues } from "./runtime/last-values.ts";
import { LocalAlarms } from "./runtime/local-alarms.ts";
import { testReadDevice } from "./runtime/test-read.ts";
import { configProblems } from "./runtime/validate-config.ts";
import { AgentStore } from "./store/agent-store.ts";
import type { AlarmTransition, SeriesPoints } from "./store/outbox.ts";
import type { LinkSnapshot, SyncRetry } from "./sync/link-state.ts";
import { SyncClient } from "./sync/sync-client.ts";
import { AGENT_VERSION } from "./version.ts";

const HEARTBEAT_MS = 15_000;

/** How a reading beyond what the server accepts shows locally. */
const OUT_OF_RANGE = {
  quality: "out_of_range",
  detail: "beyond ±1e15: check data_type, word_order and scale_factor",
} as const;

export type AgentOptions = {
  log: AgentLog;
  now?: () => number;
  drivers?: DriverFactory;
  /** Request timeout and reconnect backoff of device links. */
  timing?: { timeoutMs: number; minBackoffMs: number; maxBackoffMs: number };
  heartbeatMs?: number;
  /** The MQTT link's reconnection pace (sync-client.ts has the defaults). */
  sync?: Partial<SyncRetry>;
};

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** The link as /status shows it: times as ISO strings. */
function linkStatus(l: LinkSnapshot): LocalLink {
  return {
    state: l.state,
    since: new Date(l.since).toISOString(),
    last_connected_at: iso(l.lastConnectedAt),
    lost_at: iso(l.lostAt),
    refused: l.refusal && {
      code: l.refusal.code,
      answer: l.refusal.answer,
      first_at: new Date(l.refusal.firstAt).toISOString(),
      attempts: l.refusal.attempts,
      next_attempt_at: iso(l.refusal.nextAttemptAt),
    },
    reason: l.reason,
  };
}

/**
 * caudal-agent: polls devices into the local store first, evaluates alarms locally, and syncs
 * over MQTT. Runs the last applied configuration from its own store, so it polls with no server.
 */
export class CaudalAgent {
  readonly config: AgentRunConfig;
  readonly metrics: AgentMetrics = createAgentMetrics();
  readonly #o: Required<Omit<AgentOptions, "timing" | "sync">> & {
    timing: NonNullable<AgentOptions["timing"]>;
    sync: Partial<SyncRetry>;
  };
  readonly store: AgentStore;
  readonly #filter = new ExceptionFilter();
  readonly #alarms: LocalAlarms;
  readonly #lastValues = new LastValues();
  readonly #startedAt = Date.now();
  #pollers: DevicePoller[] = [];
  #sync: SyncClient | undefined;
  #api: LocalApi | undefined;
  #timers: NodeJS.Timeout[] = [];
  /** Deployments are applied one at a time, in arrival order (each awaits the old pollers' stop). */
  #applying: Promise<void> = Promise.resolve();
  #stopping = false;

  constructor(config: AgentRunConfig, options: AgentOptions) {
    this.config = config;
    this.#o = {
      log: options.log,
      now: options.now ?? Date.now,
      drivers: options.drivers ?? createDriverFactory({ pkiDir: join(config.data_dir, "pki") }),
      timing: options.timing ?? { timeoutMs: 2_000, minBackoffMs: 1_000, maxBackoffMs: 60_000 },
      heartbeatMs: options.heartbeatMs ?? HEARTBEAT_MS,
      sync: options.sync ?? {},
    };
    this.store = new AgentStore(config.data_dir, {
      maxBytes: config.buffer_max_mb * 1024 * 1024,
      onDrop: (d) => {
        this.metrics.droppedBatches.inc();
        this.metrics.droppedPoints.inc(d.points);
        this.#log(
          "warn",
          "buffer",
          `buffer full (${config.buffer_max_mb} MB): dropped oldest batch ${d.seq} with ${d.points} points`,
        );
      },
    });
    this.#alarms = new LocalAlarms(this.store);
  }

  get sync(): SyncClient | undefined {
    return this.#sync;
  }

  async start(): Promise<void> {
    this.store.open();
    const applied = this.store.appliedConfig();
    if (applied) {
      this.#run(applied.config);
      this.#log(
        "info",
        "config",
        `running configuration v${applied.version} (${applied.hash.slice(0, 12)}) from the local store`,
      );
    } else {
      this.#log("info", "config", "no configuration yet; waiting for a deployment");
    }
    this.#sync = new SyncClient({
      mqttUrl: this.config.mqtt_url,
      projectId: this.config.project_id,
      agentToken: this.config.agent_token,
      agentId: this.store.agentId,
      outbox: this.store.outbox,
      now: this.#o.now,
      onConfig: (c) => {
        this.#applying = this.#applying
          .then(() => (this.#stopping ? undefined : this.#applyDeployment(c)))
          .catch((err: unknown) =>
            this.#log(
              "error",
              "config",
              `applying v${c.version} failed: ${err instanceof Error ? err.message : String(err)}`,
            ),
          );
      },
      onRequest: (request) => void this.#answer(request),
      onLog: (level, message) => this.#log(level, "sync", message),
      retry: this.#o.sync,
    });
    this.#sync.start();
    this.#api = new LocalApi(
      this,
      this.config.local_api_host,
      this.config.local_api_port,
      this.config.local_api_hostnames,
    );
    await this.#api.start();
    this.#timers.push(setInterval(() => this.#heartbeat(), this.#o.heartbeatMs));
    this.#timers.push(setInterval(() => this.#forwardLogs(), 5_000));
  }

  async stop(): Promise<void> {
    this.#stopping = true;
    for (const t of this.#timers) clearInterval(t);
    this.#timers = [];
    // An apply in progress would start pollers after the ones below are stopped.
    await this.#applying;
    // Pollers first: the values of the cycle in progress are committed before the store closes.
    await Promise.all(this.#pollers.map((p) => p.stop()));
    this.#pollers = [];
    this.#forwardLogs();
    await this.#sync?.stop();
    await this.#api?.stop();
    this.store.close();
  }

  get localApiPort(): number {
    return this.#api?.port ?? 0;
  }

  status() {
    return { ...this.summary(), last_values: this.#lastValues.list() };
  }

  /** The status without the last value of every variable (heartbeats and /health need no more). */
  summary() {
    const applied = this.store.appliedVersion();
    const buffer = this.store.outbox.stats();
    return {
      agent_id: this.store.agentId,
      project_id: this.config.project_id,
      agent_version: AGENT_VERSION,
      uptime_seconds: Math.floor((Date.now() - this.#startedAt) / 1000),
      connected: this.#sync?.connected ?? false,
      link: this.#sync ? linkStatus(this.#sync.link) : null,
      last_sync: this.#sync?.lastSyncAt ? new Date(this.#sync.lastSyncAt).toISOString() : null,
      config: applied
        ? {
            version: applied.version,
            hash: applied.hash,
            applied_at: new Date(applied.appliedAt).toISOString(),
          }
        : null,
      devices: this.#pollers.map((p) => p.status),
      buffer: {
        batches: buffer.batches,
        points: buffer.points,
        bytes: buffer.bytes,
        oldest: buffer.oldestTs === null ? null : new Date(buffer.oldestTs).toISOString(),
        stored_points: buffer.storedPoints,
        dropped_batches: buffer.droppedBatches,
        dropped_points: buffer.droppedPoints,
      },
    };
  }

  localAlarms() {
    return this.store.localAlarms(this.#o.now());
  }

  /**
   * Polls `config` as a deployment would, but given in-process and not persisted: for benchmarks
   * and tests that drive the polling pipeline without a server (scripts/bench/agent.ts).
   */
  applyLocalConfig(config: AgentRuntimeConfig): Promise<void> {
    const problems = configProblems(config, this.config.project_id);
    if (problems.length > 0) return Promise.reject(new Error(problems.join("; ")));
    const applied = this.#applying.then(async () => {
      await Promise.all(this.#pollers.map((p) => p.stop()));
      this.#run(config);
    });
    this.#applying = applied.catch(() => {});
    return applied;
  }

  #run(config: AgentRuntimeConfig): void {
    const variableIds = new Set(config.devices.flatMap((d) => d.variables.map((v) => v.id)));
    this.#filter.retain(variableIds);
    this.#lastValues.retain(variableIds);
    const cleared = this.#alarms.setRules(config.alert_rules, this.#o.now());
    if (cleared.length > 0) this.#enqueue({ series: [], alarms: cleared });
    this.#pollers = config.devices.map(
      (device) =>
        new DevicePoller(device, this.#o.drivers, {
          ...this.#o.timing,
          now: this.#o.now,
          onValues: (d, values) => this.#record(d.id, d.asset_id, values),
          onLog: (level, message) => this.#log(level, "device", message),
        }),
    );
    for (const p of this.#pollers) p.start();
  }

  /** Validates, applies atomically (old pollers stop only once the new config is accepted), persists, reports. */
  async #applyDeployment(message: Payload<"config">): Promise<void> {
    const current = this.store.appliedVersion();
    const report = (status: "applied" | "failed", error: string | null) =>
      this.#sync?.publish("configStatus", {
        agent_id: this.store.agentId,
        deployment_id: message.deployment_id,
        version: message.version,
        hash: message.hash,
        status,
        error,
      });
    if (current?.hash === message.hash && current.deploymentId === message.deployment_id) {
      report("applied", null);
      return;
    }
    const problems = configProblems(message.config, this.config.project_id);
    if (configHash(message.config) !== message.hash) problems.unshift("content hash does not match");
    if (problems.length > 0) {
      const reason = problems.join("; ");
      this.#log(
        "error",
        "config",
        `deployment v${message.version} refused, keeping the current configuration: ${reason}`,
      );
      report("failed", reason);
      return;
    }
    await Promise.all(this.#pollers.map((p) => p.stop()));
    this.store.saveAppliedConfig({
      deploymentId: message.deployment_id,
      version: message.version,
      hash: message.hash,
      config: message.config,
      appliedAt: this.#o.now(),
    });
    this.#run(message.config);
    this.#log(
      "info",
      "config",
      `applied configuration v${message.version} (${message.config.devices.length} devices)`,
    );
    report("applied", null);
  }

  #record(deviceId: string, assetId: string, values: PolledValue[]): void {
    const series = new Map<string, SeriesPoints>();
    const alarms: AlarmTransition[] = [];
    // Counted per poll, not per value: a labelled inc() costs a label lookup each time.
    const polled = new Map<string, number>();
    let outOfRange = 0;
    for (const { variable, result, ts } of values) {
      polled.set(result.quality, (polled.get(result.quality) ?? 0) + 1);
      this.#lastValues.set(variable, deviceId, result, ts);
      if (result.quality !== "good" || result.value === null) continue;
      // The server refuses a batch holding a value beyond ±1e15 (shared/telemetry-limits.ts):
      // such a value (a mis-typed register, a garbage float) is kept out of the batch, shown locally.
      if (!readingInRange(result.value)) {
        outOfRange += 1;
        this.#lastValues.set(variable, deviceId, { value: result.value, ...OUT_OF_RANGE }, ts);
        continue;
      }
      const raised = this.#alarms.observe(assetId, variable.alias, result.value, ts);
      if (raised.length > 0) alarms.push(...raised);
      if (!this.#filter.accept(variable.id, result.value, variable.deadband, ts)) continue;
      const s = series.get(variable.alias);
      if (s) s.points.push([ts, result.value]);
      else
        series.set(variable.alias, {
          asset_id: assetId,
          variable: variable.alias,
          unit: variable.unit,
          points: [[ts, result.value]],
        });
    }
    for (const [quality, n] of polled) this.metrics.polledValues.inc({ quality }, n);
    if (outOfRange > 0) this.metrics.polledValues.inc({ quality: "out_of_range" }, outOfRange);
    if (series.size === 0 && alarms.length === 0) return;
    this.#enqueue({ series: [...series.values()], alarms });
  }

  /** Stores a batch in the outbox and, when connected, tells the sync client to send it. */
  #enqueue(body: { series: SeriesPoints[]; alarms: AlarmTransition[] }): void {
    const connected = this.#sync?.connected ?? false;
    const seq = this.store.outbox.append(body, this.#o.now(), !connected);
    this.metrics.storedPoints.inc(body.series.reduce((n, s) => n + s.points.length, 0));
    if (connected) this.#sync?.notifyAppended(seq);
  }

  #heartbeat(): void {
    const s = this.summary();
    this.metrics.bufferBatches.set(s.buffer.batches);
    this.metrics.bufferPoints.set(s.buffer.points);
    this.metrics.bufferBytes.set(s.buffer.bytes);
    this.metrics.connected.set(s.connected ? 1 : 0);
    const stats = this.store.outbox.stats();
    this.#sync?.publish("heartbeat", {
      agent_id: s.agent_id,
      agent_version: AGENT_VERSION,
      uptime_seconds: s.uptime_seconds,
      devices: s.devices.map((d) => ({
        device_id: d.device_id,
        name: d.name,
        state: d.state,
        last_error: d.last_error,
        last_read_at: d.last_read_at,
      })),
      buffer: {
        batches: stats.batches,
        points: stats.points,
        oldest_ts: stats.oldestTs,
        dropped_batches: stats.droppedBatches,
      },
      config: { version: s.config?.version ?? null, hash: s.config?.hash ?? null },
    } satisfies Payload<"heartbeat">);
  }

  /** A request from the server (test-read, browse): one look at the device given, beside the running pollers. */
  async #answer(request: Payload<"request">): Promise<void> {
    const { device } = request;
    this.#log("info", "request", `${request.kind} of "${device.name}"`);
    const answer =
      request.kind === "browse"
        ? await browseDevice(device, request.node_id ?? null, request.timeout_ms, this.#o.drivers)
        : await testReadDevice(this.config.project_id, device, request.timeout_ms, this.#o.drivers);
    this.#sync?.publish("response", {
      agent_id: this.store.agentId,
      request_id: request.request_id,
      ...answer,
    } satisfies Payload<"response">);
  }

  #forwardLogs(): void {
    if (!this.#sync?.connected) return;
    const entries = this.#o.log.take();
    if (entries.length > 0) this.#sync.publish("logs", { agent_id: this.store.agentId, entries });
  }

  #log(level: "debug" | "info" | "warn" | "error", category: string, message: string): void {
    this.#o.log.log(level, category, message);
  }
}
