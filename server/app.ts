import type { MqttBroker } from "./broker/broker.ts";
import { newApiApp } from "./http/api-app.ts";
import { openApiDocumentOnce } from "./http/openapi-document.ts";
import type { Logger } from "./logger.ts";
import { agentRoutes } from "./routes/agents/index.ts";
import { alarmRoutes } from "./routes/alarms/index.ts";
import { alertRuleRoutes } from "./routes/alarms/rules/index.ts";
import { auditRoutes } from "./routes/audit/index.ts";
import { authRoutes } from "./routes/auth/index.ts";
import { billingRoutes } from "./routes/billing/index.ts";
import { ConsoleFiles } from "./routes/console/console-files.ts";
import { consoleRoutes } from "./routes/console/index.ts";
import { dashboardRoutes } from "./routes/dashboard/index.ts";
import { distributionRoutes } from "./routes/distribution/index.ts";
import { installerRoutes } from "./routes/distribution/installers/index.ts";
import { edgeFieldRoutes } from "./routes/field/field-routes.ts";
import { tanksRoutes } from "./routes/field/tanks/index.ts";
import { mqttWebSocketRoutes } from "./routes/mqtt/index.ts";
import { mqttCredentialRoutes } from "./routes/mqtt-credentials/index.ts";
import { downtimeRoutes } from "./routes/records/downtime/index.ts";
import { labResultRoutes } from "./routes/records/lab-results/index.ts";
import { meterReadingRoutes } from "./routes/records/meter-readings/index.ts";
import { movementRoutes } from "./routes/records/movements/index.ts";
import { wellTestRoutes } from "./routes/records/well-tests/index.ts";
import { anhRoutes } from "./routes/reports/index.ts";
import { systemRoutes } from "./routes/system/index.ts";
import { telemetryRoutes } from "./routes/telemetry/index.ts";
import { adminRoutes } from "./routes/users/index.ts";
import { wsRoutes } from "./routes/ws/index.ts";
import type { RuleChangeListener } from "./services/alarms/rule-listener.ts";
import type { ServiceContext } from "./services/context.ts";
import { AgentBuild } from "./services/distribution/agent-build/agent-build.ts";
import type { HealthProbes } from "./services/system/health.ts";
import { TelemetryService } from "./services/telemetry/service.ts";
import { LiveTelemetry } from "./ws/live-telemetry.ts";

export type AppDeps = {
  ctx: ServiceContext;
  /**
   * GET /api/ws/telemetry hands its connections to this stream, which server.ts starts and stops.
   * Absent (apps built only to inspect routes), the endpoint gets a stream that is never started.
   */
  live?: LiveTelemetry;
  /**
   * The server's telemetry service (ingest, the latest readings), which server.ts starts and
   * stops. Absent (apps built only to inspect routes), one that is never started: writes answer 503.
   */
  telemetry?: TelemetryService;
  /** The running alarm engine, told of rule changes; absent (apps built only to inspect routes): none runs. */
  alarms?: RuleChangeListener;
  /** The embedded broker; when given, MQTT over WebSocket is served at /mqtt. */
  broker?: MqttBroker;
  /**
   * The agent executables served and the server's own build of them, which server.ts starts and
   * stops. Absent (apps built only to inspect routes), one that never builds.
   */
  agentBuild?: AgentBuild;
  /** GET /health: override the database probe (tests) and add the MQTT broker once it runs. */
  health?: HealthProbes;
  /** Where the per-request lines go (REQUEST_LOG_FILE); by default the server's logger. */
  requestLogger?: Logger;
  /** GET /metrics: the HTTP worker threads' own metrics, added to this server's. */
  workerMetrics?: () => Promise<unknown[][]>;
};

/** Builds the HTTP application. No I/O happens here beyond what `deps` already opened. */
export function createApp(deps: AppDeps) {
  const { ctx } = deps;
  const { artifacts } = deps.agentBuild ?? new AgentBuild(ctx);
  const app = newApiApp(ctx, deps.requestLogger ?? ctx.logger);

  app.openAPIRegistry.registerComponent("securitySchemes", "bearerAuth", {
    type: "http",
    scheme: "bearer",
    bearerFormat: "JWT",
  });

  // Root paths /health, /metrics, /docs; the document is built on first request, after all mounts.
  app.route("/", consoleRoutes(new ConsoleFiles(ctx.config.CONSOLE_DIR)));
  app.route(
    "/",
    systemRoutes(ctx, {
      health: deps.health ?? {},
      document: openApiDocumentOnce(app),
      workerMetrics: deps.workerMetrics ?? (() => Promise.resolve([])),
    }),
  );
  app.route("/api/auth", authRoutes(ctx));
  app.route("/api/movements", movementRoutes(ctx));
  app.route("/api/downtime", downtimeRoutes(ctx));
  app.route("/api/well-tests", wellTestRoutes(ctx));
  app.route("/api/lab-results", labResultRoutes(ctx));
  app.route("/api/meters/readings", meterReadingRoutes(ctx));
  app.route("/api/audit", auditRoutes(ctx));
  app.route("/api/edge", edgeFieldRoutes(ctx));
  app.route("/api/edge", agentRoutes(ctx, { mqttPort: () => deps.broker?.port ?? ctx.config.MQTT_PORT }));
  app.route("/api/edge", installerRoutes(ctx, artifacts));
  app.route("/api/edge", distributionRoutes(ctx, artifacts));
  app.route("/api/edge", mqttCredentialRoutes(ctx));
  app.route("/api/tanks", tanksRoutes(ctx));
  app.route("/api/telemetry", telemetryRoutes(ctx, deps.telemetry ?? new TelemetryService(ctx)));
  app.route("/api/admin", adminRoutes(ctx));
  app.route("/api/alert-rules", alertRuleRoutes(ctx, deps.alarms));
  app.route("/api/alarms", alarmRoutes(ctx));
  app.route("/api/anh", anhRoutes(ctx));
  app.route("/api/billing", billingRoutes(ctx));
  app.route("/api/dashboard", dashboardRoutes(ctx));
  app.route("/api/ws", wsRoutes(ctx, deps.live ?? new LiveTelemetry(ctx)));
  if (deps.broker) app.route("/mqtt", mqttWebSocketRoutes(deps.broker));
  return app;
}

export type App = ReturnType<typeof createApp>;
