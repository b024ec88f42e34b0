import { Server as HttpServer } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { createAdaptorServer, type ServerType, serve } from "@hono/node-server";
import { WebSocketServer } from "ws";
import { ActivityLog } from "./activity/activity-log.ts";
import { createApp } from "./app.ts";
import { MqttBroker } from "./broker/broker.ts";
import { agentMessageHandlers } from "./broker/handlers.ts";
import type { ServerConfig } from "./config.ts";
import { createMetricsRegistry } from "./http/metrics.ts";
import { openRequestLogFile, type RequestLogFile } from "./http/request-log.ts";
import { FrontDoor, serveOn } from "./http-workers/front-door.ts";
import { HttpWorkers } from "./http-workers/pool.ts";
import { loadKeys } from "./keys.ts";
import type { Logger } from "./logger.ts";
import { AutoDeploy } from "./services/agents/auto-deploy.ts";
import { AlarmEngine } from "./services/alarms/engine.ts";
import { type Clock, type ServiceContext, systemClock } from "./services/context.ts";
import { AgentBuild } from "./services/distribution/agent-build/agent-build.ts";
import type { AgentBuildCommand } from "./services/distribution/agent-build/build-plan.ts";
import { InstallerBuildWorker } from "./services/distribution/installer-builds/build-worker.ts";
import { EventBus } from "./services/events.ts";
import { createScheduler, type Scheduler } from "./services/scheduler/default-jobs.ts";
import { TelemetryService } from "./services/telemetry/service.ts";
import { describeLocation, storeLocation } from "./store/location.ts";
import { type OpenedStore, openStore } from "./store/open-store.ts";
import type { Store } from "./store/store.ts";
import { LiveTelemetry } from "./ws/live-telemetry.ts";
import type { LiveTelemetryOptions } from "./ws/stream-options.ts";
import { withUpgradeRefusals } from "./ws/upgrade-refusal.ts";

export type CaudalServerOptions = {
  config: ServerConfig;
  logger: Logger;
  clock?: Clock;
  /** Live stream tuning (tests shorten the ping and session-check intervals). */
  live?: Partial<LiveTelemetryOptions>;
  /** Quiet time after the last configuration change before the automatic deployment (default 2 s). */
  autoDeployDelayMs?: number;
  /**
   * Replaces the agent build's command (tests: a cheap child process in place of minutes of
   * real build). Not a setting: only code that constructs the server can give it.
   */
  agentBuildCommand?: AgentBuildCommand;
};

/** caudal-server: the constructor only assigns; start() opens the database and ports, stop() closes them. */
export class CaudalServer {
  readonly #options: CaudalServerOptions;
  #database: OpenedStore | undefined;
  #http: ServerType | undefined;
  /** With HTTP_WORKERS: the port's listener and the worker threads (server/http-workers/). */
  #front: FrontDoor | undefined;
  #workers: HttpWorkers | undefined;
  #ctx: ServiceContext | undefined;
  #live: LiveTelemetry | undefined;
  #alarms: AlarmEngine | undefined;
  #wss: WebSocketServer | undefined;
  #scheduler: Scheduler | undefined;
  #telemetry: TelemetryService | undefined;
  #broker: MqttBroker | undefined;
  #requestLog: RequestLogFile | undefined;
  #activity: ActivityLog | undefined;
  #autoDeploy: AutoDeploy | undefined;
  #installerBuilds: InstallerBuildWorker | undefined;
  #agentBuild: AgentBuild | undefined;

  constructor(options: CaudalServerOptions) {
    this.#options = options;
  }

  get context(): ServiceContext {
    if (!this.#ctx) throw new Error("server not started");
    return this.#ctx;
  }

  /** The storage ports (the store of the running server's context). */
  get store(): Store {
    return this.context.store;
  }

  /** The live telemetry stream (GET /api/ws/telemetry). */
  get live(): LiveTelemetry {
    if (!this.#live) throw new Error("server not started");
    return this.#live;
  }

  /** The alarm engine (rule evaluation on telemetry, comm_loss timer). */
  get autoDeploy(): AutoDeploy {
    if (!this.#autoDeploy) throw new Error("server not started");
    return this.#autoDeploy;
  }

  get alarms(): AlarmEngine {
    if (!this.#alarms) throw new Error("server not started");
    return this.#alarms;
  }

  /** The in-process scheduler (daily ANH reports, monthly invoices); tests call tick(). */
  get scheduler(): Scheduler {
    if (!this.#scheduler) throw new Error("server not started");
    return this.#scheduler;
  }

  /** The embedded MQTT broker. */
  get broker(): MqttBroker {
    if (!this.#broker) throw new Error("server not started");
    return this.#broker;
  }

  /** The telemetry service (ingest, retention and packing over the store); tests call runRetention(). */
  get telemetry(): TelemetryService {
    if (!this.#telemetry) throw new Error("server not started");
    return this.#telemetry;
  }

  /** The HTTP worker threads; undefined with HTTP_WORKERS=0. */
  get httpWorkers(): HttpWorkers | undefined {
    return this.#workers;
  }

  /** The bound HTTP port (useful with PORT=0). */
  get port(): number {
    const address = this.#front?.address ?? (this.#http?.address() as AddressInfo | null | undefined);
    if (!address) throw new Error("server not listening");
    return address.port;
  }

  async start(): Promise<void> {
    const { config, logger } = this.#options;
    const location = storeLocation(config);
    const opened = await openStore(location, {
      role: "owner",
      poolSize: config.DATABASE_POOL_SIZE,
      onIdleError: (error) => logger.warn("database connection dropped", { error: error.message }),
    });
    this.#database = opened;
    logger.info("storage", { engine: location.engine, database: describeLocation(location) });
    this.#ctx = {
      store: opened.store,
      config,
      logger,
      clock: this.#options.clock ?? systemClock,
      keys: loadKeys(config),
      events: new EventBus(),
      metrics: createMetricsRegistry(),
    };
    this.#activity = new ActivityLog(this.#ctx);
    this.#activity.start();
    this.#telemetry = new TelemetryService(this.#ctx);
    await this.#telemetry.start();
    this.#live = new LiveTelemetry(this.#ctx, this.#options.live);
    this.#live.start();
    this.#alarms = new AlarmEngine(this.#ctx);
    await this.#alarms.start();
    this.#broker = new MqttBroker(this.#ctx, agentMessageHandlers(this.#ctx, this.#telemetry));
    await this.#broker.start(config.MQTT_PORT, config.HOST);
    const broker = this.#broker;
    // After the broker: it publishes each automatic deployment retained to the agent.
    this.#autoDeploy = new AutoDeploy(this.#ctx, this.#options.autoDeployDelayMs);
    await this.#autoDeploy.start();
    // Missing agent executables are built in the background (AGENT_BUILD); start() does not wait.
    this.#agentBuild = new AgentBuild(this.#ctx, this.#options.agentBuildCommand);
    this.#agentBuild.start();
    // Before HTTP: a build left running by the last run is failed before anyone asks about it.
    this.#installerBuilds = new InstallerBuildWorker(this.#ctx, this.#agentBuild.artifacts);
    await this.#installerBuilds.start();
    this.#requestLog = config.REQUEST_LOG_FILE
      ? openRequestLogFile(config.REQUEST_LOG_FILE, config.LOG_LEVEL, logger)
      : undefined;
    const app = createApp({
      ctx: this.#ctx,
      live: this.#live,
      alarms: this.#alarms,
      telemetry: this.#telemetry,
      broker,
      agentBuild: this.#agentBuild,
      health: { broker: { isUp: () => broker.isUp }, agentBuild: this.#agentBuild },
      requestLogger: this.#requestLog?.logger,
      workerMetrics: () => this.#workers?.metricsJson() ?? Promise.resolve([]),
    });
    /*
     * WebSockets share the HTTP port and are routed by PATH through the Hono app: a WebSocket
     * endpoint is an ordinary route whose handler calls `upgradeWebSocket` from @hono/node-server
     * (see routes/ws/telemetry.ts); MQTT over WebSocket at /mqtt is added the same way. Never add
     * a second 'upgrade' listener on the HTTP server: node-server then stops answering refused
     * upgrades. One WebSocketServer serves every path; its maxPayload bounds client messages.
     */
    this.#wss = new WebSocketServer({
      noServer: true,
      perMessageDeflate: false,
      // The largest MQTT packet the broker takes (plus its 5-byte fixed header): a larger WebSocket
      // message is refused before it is buffered whole. The live stream's client messages are tiny.
      maxPayload: config.MQTT_MAX_PACKET_BYTES + 5,
      // MQTT over WebSocket requires the "mqtt" subprotocol to be echoed (MQTT 3.1.1 §6).
      handleProtocols: (protocols) => (protocols.has("mqtt") ? "mqtt" : false),
    });
    const websocket = { server: this.#wss };
    const fetch = withUpgradeRefusals(app.fetch);
    if (config.HTTP_WORKERS > 0) {
      // Worker threads parse, authenticate and validate ingest requests; this thread writes.
      const http = createAdaptorServer({ fetch, websocket });
      if (!(http instanceof HttpServer)) throw new Error("node-server made no HTTP/1.1 server");
      this.#http = http;
      const serveHere = (socket: Socket, head: Buffer) => serveOn(http, socket, head);
      this.#workers = new HttpWorkers(
        {
          ctx: this.#ctx,
          telemetry: this.#telemetry,
          count: config.HTTP_WORKERS,
          fetch: app.fetch,
          serve: serveHere,
          requestLogger: this.#requestLog?.logger ?? logger,
        },
        {
          config,
          location,
          jwtKey: this.#ctx.keys.jwt,
          totpKey: this.#ctx.keys.totp,
          clockOffsetMs: this.#ctx.clock.offsetMs,
        },
      );
      this.#front = new FrontDoor(http, this.#workers);
      await this.#front.listen(config.PORT, config.HOST);
    } else {
      await new Promise<void>((resolve, reject) => {
        const server = serve({ fetch, websocket, port: config.PORT, hostname: config.HOST }, () => resolve());
        server.once("error", reject);
        this.#http = server;
      });
    }
    logger.info("http listening", { host: config.HOST, port: this.port });
    this.#scheduler = createScheduler(this.#ctx);
    this.#scheduler.start();
  }

  async stop(): Promise<void> {
    // First: a pass under way finishes while everything it uses is still open.
    await this.#scheduler?.stop();
    this.#scheduler = undefined;
    // WebSocket clients first: upgraded sockets would otherwise hold http.close() open.
    await this.#live?.stop();
    this.#live = undefined;
    for (const ws of this.#wss?.clients ?? []) ws.terminate();
    this.#wss = undefined;
    this.#front?.close();
    this.#front = undefined;
    // Their connections close; a request not yet answered was never acknowledged.
    await this.#workers?.stop();
    this.#workers = undefined;
    const http = this.#http;
    this.#http = undefined;
    if (http) {
      await new Promise<void>((resolve) => {
        http.close(() => resolve());
        if ("closeAllConnections" in http) http.closeAllConnections();
      });
    }
    await this.#requestLog?.close();
    this.#requestLog = undefined;
    // No more changes arrive once HTTP is closed; pending automatic deployments are dropped (start() checks again).
    await this.#autoDeploy?.stop();
    this.#autoDeploy = undefined;
    // No new builds are queued once HTTP is closed; a running wixl is killed and its build failed.
    await this.#installerBuilds?.stop();
    this.#installerBuilds = undefined;
    // Its executables so far stay; the next start builds the rest.
    await this.#agentBuild?.stop();
    this.#agentBuild = undefined;
    // After HTTP; before telemetry stops, so a batch being handled still commits.
    await this.#broker?.stop();
    this.#broker = undefined;
    // After HTTP (no new writes), before the alarm engine (it hears the last commit's events).
    await this.#telemetry?.stop();
    this.#telemetry = undefined;
    await this.#alarms?.stop();
    this.#alarms = undefined;
    // Last of the listeners: the agent's offline status and the last alarms are still told.
    this.#activity?.stop();
    this.#activity = undefined;
    await this.#database?.close();
    this.#database = undefined;
  }
}
