import { EventEmitter } from "node:events";
import type { Payload } from "../../shared/mqtt/topics.ts";
import type { TelemetryBatch } from "../../shared/telemetry/batch.ts";

/**
 * The points one request (an HTTP request, an agent's batch) committed, in the batch shape: only
 * the stored ones (no duplicates), each series with its unit (the readings', else the series').
 */
export type TelemetryEvent = TelemetryBatch;

export type AlarmEventDto = {
  id: string;
  project_id: string;
  asset_id: string | null;
  variable: string;
  value: number;
  alarm_type: "high" | "low" | "critical_high" | "critical_low" | "comm_loss";
  message: string;
  acknowledged: boolean;
  timestamp: string;
} & Record<string, unknown>;

export type AlarmNotice = { event: "raised" | "cleared" | "acknowledged"; alarm: AlarmEventDto };

type EventMap = {
  /** After a request's telemetry is committed (one per request, when it stored any point). */
  telemetry: [TelemetryEvent];
  /** After an alarm transition is committed. */
  alarm: [AlarmNotice];
  /** A session ended (logout, reuse detection, user disabled). */
  sessionRevoked: [{ sessionId: string | null; userId: string | null }];
  /**
   * A project, its assets, devices, variables or alert rules changed (after commit); see
   * services/agents/auto-deploy.ts and the broker's HMI namespaces (server/broker/hmi/).
   */
  configChanged: [{ projectId: string }];
  /** A project and everything under it was deleted (after commit). */
  projectDeleted: [{ projectId: string }];
  /** A configuration deployment was recorded; the broker publishes it retained to the agent. */
  deploymentCreated: [{ projectId: string; message: Payload<"config"> }];
  /** A request for the project's agent (test-read); the broker publishes it to the agent. */
  agentRequest: [{ projectId: string; message: Payload<"request"> }];
  /** The agent answered a request. */
  agentResponse: [{ projectId: string; body: Payload<"response"> }];
  /** An agent reported `online`, or `offline` (a clean stop, or the broker's last will for it). */
  agentStatus: [{ projectId: string; status: "online" | "offline" }];
  /**
   * A user's role or project assignment changed; live connections re-read what the user may see
   * (a deactivation or a changed password is `sessionRevoked` instead).
   */
  accessChanged: [{ userId: string }];
  /** A project's agent token was rotated; connected agents using the old one must go. */
  agentTokenRotated: [{ projectId: string }];
  /** An installer build was queued; the build worker (services/distribution/installer-builds/) runs it. */
  installerBuildQueued: [{ buildId: string; projectId: string }];
  /** An HMI's MQTT credential was revoked; its connections must go at once. */
  mqttCredentialRevoked: [{ projectId: string; credentialId: string }];
  /** An HMI's MQTT credential now speaks for another Sparkplug host id; its connections must log in again. */
  mqttCredentialChanged: [{ projectId: string; credentialId: string }];
  /** An agent's heartbeat was recorded (its version, configuration and buffer: Sparkplug node metrics). */
  agentHeartbeat: [{ projectId: string; heartbeat: Payload<"heartbeat"> }];
};

/** In-process events between services and the live edges (WebSocket, MQTT). Emitted only after commit. */
export class EventBus extends EventEmitter<EventMap> {
  constructor() {
    super();
    // Every WebSocket client subscribes; the default limit of 10 would warn.
    this.setMaxListeners(0);
  }
}
