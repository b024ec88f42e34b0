import type { Socket } from "node:net";
import type { WebSocket } from "ws";
import { roleCan } from "../../shared/roles.ts";
import { instantsOfBatch } from "../../shared/telemetry/batch.ts";
import type { ServiceContext } from "../services/context.ts";
import type { AlarmNotice, TelemetryEvent } from "../services/events.ts";
import { liveSessionScope, type SessionScope } from "../services/live/session-scope.ts";
import { alarmFrame, telemetryFrame } from "./frames.ts";
import { StreamClient } from "./stream-client.ts";
import { registerStreamMetrics } from "./stream-metrics.ts";
import { CloseCode, DEFAULT_LIVE_OPTIONS, type LiveTelemetryOptions } from "./stream-options.ts";
import { SubscriberIndex } from "./subscriber-index.ts";

export type AcceptOptions = {
  ws: WebSocket;
  socket: Socket;
  userId: string;
  sessionId: string;
  expiresAtMs: number;
  projectFilter: string | null;
  scope: SessionScope;
};

type RevokedSession = { sessionId: string | null; userId: string | null };

export type LiveTelemetryStats = {
  clients: number;
  queuedFrames: number;
  queuedBytes: number;
  bufferedBytes: number;
  sent: number;
  dropped: number;
};

/**
 * The live telemetry stream (spec §6.1): fans the `telemetry` and `alarm` events of ctx.events out to
 * every connected WebSocket client allowed to see the event's project. Each event is serialised
 * once; clients are indexed by project so an event only touches the clients that want it; events
 * are gathered for flushDelayMs and written to each client in one batch. start() subscribes and
 * starts the ping and session timers, stop() closes every client.
 */
export class LiveTelemetry {
  readonly #ctx: ServiceContext;
  readonly #options: LiveTelemetryOptions;
  readonly #clients = new Set<StreamClient>();
  readonly #subscribers = new SubscriberIndex();
  readonly #expiryTimers = new Map<StreamClient, NodeJS.Timeout>();
  #dirty: StreamClient[] = [];
  #flushHandle: NodeJS.Timeout | undefined;
  #timers: NodeJS.Timeout[] = [];
  #started = false;
  #sent = 0;
  #dropped = 0;

  constructor(ctx: ServiceContext, options: Partial<LiveTelemetryOptions> = {}) {
    this.#ctx = ctx;
    this.#options = { ...DEFAULT_LIVE_OPTIONS, ...options };
  }

  get clientCount(): number {
    return this.#clients.size;
  }

  start(): void {
    if (this.#started) return;
    this.#started = true;
    const { events } = this.#ctx;
    events.on("telemetry", this.#onTelemetry);
    events.on("alarm", this.#onAlarm);
    events.on("sessionRevoked", this.#onSessionRevoked);
    events.on("accessChanged", this.#onAccessChanged);
    this.#timers = [
      setInterval(() => this.heartbeat(), this.#options.pingIntervalMs).unref(),
      setInterval(() => void this.#checkSessionsQuietly(), this.#options.sessionCheckIntervalMs).unref(),
    ];
    registerStreamMetrics(this.#ctx.metrics, () => this.stats());
  }

  async stop(): Promise<void> {
    if (!this.#started) return;
    this.#started = false;
    const { events } = this.#ctx;
    events.off("telemetry", this.#onTelemetry);
    events.off("alarm", this.#onAlarm);
    events.off("sessionRevoked", this.#onSessionRevoked);
    events.off("accessChanged", this.#onAccessChanged);
    for (const timer of this.#timers) clearInterval(timer);
    this.#timers = [];
    clearTimeout(this.#flushHandle);
    this.#flushHandle = undefined;
    const open = [...this.#clients];
    const closed = Promise.all(open.map((c) => whenClosed(c.ws)));
    for (const client of open) this.#close(client, CloseCode.GoingAway, "server shutting down");
    let grace: NodeJS.Timeout | undefined;
    await Promise.race([
      closed,
      new Promise<void>((resolve) => {
        grace = setTimeout(resolve, this.#options.closeGraceMs);
      }),
    ]);
    clearTimeout(grace);
    for (const client of open) client.ws.terminate();
  }

  /** Registers an upgraded connection. The caller has authenticated it and checked its filter. */
  accept(options: AcceptOptions): StreamClient {
    const client = new StreamClient(options, this.#options);
    this.#clients.add(client);
    this.#subscribers.add(client);
    this.#armExpiry(client);
    const { ws } = options;
    ws.on("pong", () => {
      client.alive = true;
    });
    ws.on("error", (err) => {
      this.#ctx.logger.debug("ws error", { stream: "telemetry", user_id: client.userId, error: err.message });
    });
    ws.once("close", (code) => this.#forget(client, code));
    this.#ctx.logger.info("ws connected", {
      stream: "telemetry",
      user_id: client.userId,
      project_id: client.projectFilter,
      clients: this.#clients.size,
    });
    return client;
  }

  /**
   * One keep-alive round (RFC 6455 §5.5.2): clients that did not answer the previous ping are
   * terminated, the others pinged. Runs every pingIntervalMs; public so tests can run a round now.
   */
  heartbeat(): void {
    for (const client of [...this.#clients]) {
      if (client.closed) continue;
      if (!client.alive) {
        this.#ctx.logger.info("ws ping timeout", { stream: "telemetry", user_id: client.userId });
        this.#subscribers.remove(client);
        client.terminate();
        continue;
      }
      client.alive = false;
      client.ws.ping();
    }
  }

  /**
   * Re-checks every client (runs every sessionCheckIntervalMs; public so tests can run it now):
   * an expired access token or an ended session closes with 4401; the user's role and project
   * assignment are read again, and a project_id filter the user may no longer see closes with 4403.
   */
  async checkSessions(): Promise<void> {
    const now = this.#ctx.clock.now().getTime();
    const scopes = new Map<string, SessionScope | null>();
    for (const client of [...this.#clients]) {
      if (client.closed) continue;
      if (client.expiresAtMs <= now) {
        this.#close(client, CloseCode.Unauthorized, "access token expired");
        continue;
      }
      let scope = scopes.get(client.sessionId);
      if (scope === undefined) {
        scope = await liveSessionScope(this.#ctx, client.sessionId);
        scopes.set(client.sessionId, scope);
        // It may have gone while the store answered.
        if (client.closed) continue;
      }
      if (!scope) {
        this.#close(client, CloseCode.Unauthorized, "session ended");
        continue;
      }
      if (sameScope(client.scope, scope)) continue;
      client.scope = scope;
      if (!roleCan(scope.role, "telemetry:read")) {
        this.#close(client, CloseCode.Forbidden, "your role no longer reads telemetry");
        continue;
      }
      const interest = client.interest();
      if (client.projectFilter !== null && interest !== "all" && interest.size === 0) {
        this.#close(client, CloseCode.Forbidden, "project_id is no longer one of your projects");
        continue;
      }
      this.#subscribers.add(client);
    }
  }

  /** checkSessions from a timer or an event: a failure is logged, and the next check tries again. */
  async #checkSessionsQuietly(): Promise<void> {
    try {
      await this.checkSessions();
    } catch (err) {
      this.#ctx.logger.error("live stream session check failed", {
        error: err instanceof Error ? err.message : String(err),
      });
    }
  }

  stats(): LiveTelemetryStats {
    let queuedFrames = 0;
    let queuedBytes = 0;
    let bufferedBytes = 0;
    let sent = this.#sent;
    let dropped = this.#dropped;
    for (const client of this.#clients) {
      queuedFrames += client.queuedFrames;
      queuedBytes += client.queuedBytes;
      bufferedBytes += client.ws.bufferedAmount;
      sent += client.sent;
      dropped += client.dropped;
    }
    return { clients: this.#clients.size, queuedFrames, queuedBytes, bufferedBytes, sent, dropped };
  }

  /** A role or assignment change applies at once, not at the next periodic check. */
  readonly #onAccessChanged = (): void => {
    void this.#checkSessionsQuietly();
  };

  /** A committed batch: one message per asset and instant, built only when a client wants its project. */
  readonly #onTelemetry = (event: TelemetryEvent): void => {
    if (!event.series.some((s) => this.#subscribers.wants(s.projectId))) return;
    for (const instant of instantsOfBatch(event)) {
      this.#publish(instant.projectId, () => telemetryFrame(instant).data);
    }
  };

  readonly #onAlarm = (notice: AlarmNotice): void => {
    this.#publish(notice.alarm.project_id, () => alarmFrame(notice).data);
  };

  readonly #onSessionRevoked = ({ sessionId, userId }: RevokedSession): void => {
    // Both null: a session was revoked without saying which (refresh token reuse); check them all.
    if (sessionId === null && userId === null) {
      void this.#checkSessionsQuietly();
      return;
    }
    for (const client of [...this.#clients]) {
      if (client.sessionId === sessionId || client.userId === userId) {
        this.#close(client, CloseCode.Unauthorized, "session ended");
      }
    }
  };

  /**
   * Serialises the event only if someone wants it and queues it for those clients; the batch is
   * written flushDelayMs later.
   * Never throws: the emitter (the ingest path) has already committed and must not fail because of us.
   */
  #publish(projectId: string, encode: () => Buffer): void {
    try {
      this.#fanOut(projectId, encode);
    } catch (err) {
      this.#ctx.logger.error("live stream publish failed", {
        project_id: projectId,
        error: err instanceof Error ? err.message : String(err),
      });
    }
  }

  #fanOut(projectId: string, encode: () => Buffer): void {
    if (!this.#subscribers.wants(projectId)) return;
    const data = encode();
    this.#subscribers.forEach(projectId, (client) => this.#queue(client, data));
    if (!this.#flushHandle && this.#dirty.length > 0) {
      this.#flushHandle = setTimeout(this.#flush, this.#options.flushDelayMs);
    }
  }

  #queue(client: StreamClient, data: Buffer): void {
    client.enqueue(data);
    if (client.pending) return;
    client.pending = true;
    this.#dirty.push(client);
  }

  readonly #flush = (): void => {
    this.#flushHandle = undefined;
    const dirty = this.#dirty;
    this.#dirty = [];
    for (const client of dirty) {
      client.pending = false;
      client.flush();
    }
  };

  /** Closes at the token's expiry even between session checks (a wall-clock timer). */
  #armExpiry(client: StreamClient): void {
    const delay = client.expiresAtMs - this.#ctx.clock.now().getTime();
    const timer = setTimeout(
      () => {
        this.#expiryTimers.delete(client);
        if (client.expiresAtMs <= this.#ctx.clock.now().getTime()) {
          this.#close(client, CloseCode.Unauthorized, "access token expired");
        } else {
          this.#armExpiry(client);
        }
      },
      Math.max(0, Math.min(delay, 2 ** 31 - 1)),
    ).unref();
    this.#expiryTimers.set(client, timer);
  }

  #close(client: StreamClient, code: number, reason: string): void {
    this.#subscribers.remove(client);
    client.close(code, reason);
  }

  /** After the socket closed, whoever closed it. */
  #forget(client: StreamClient, code: number): void {
    this.#subscribers.remove(client);
    client.release();
    this.#clients.delete(client);
    clearTimeout(this.#expiryTimers.get(client));
    this.#expiryTimers.delete(client);
    this.#sent += client.sent;
    this.#dropped += client.dropped;
    this.#ctx.logger.info("ws disconnected", {
      stream: "telemetry",
      user_id: client.userId,
      code,
      duration_s: Math.round((Date.now() - client.connectedAt) / 1000),
      sent: client.sent,
      dropped: client.dropped,
      clients: this.#clients.size,
    });
  }
}

function sameScope(a: SessionScope, b: SessionScope): boolean {
  if (a.role !== b.role || a.projectIds.size !== b.projectIds.size) return false;
  for (const id of a.projectIds) if (!b.projectIds.has(id)) return false;
  return true;
}

function whenClosed(ws: WebSocket): Promise<void> {
  if (ws.readyState === ws.CLOSED) return Promise.resolve();
  return new Promise((resolve) => ws.once("close", () => resolve()));
}
