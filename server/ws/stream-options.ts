import type { StreamLimits } from "./stream-client.ts";

export type LiveTelemetryOptions = StreamLimits & {
  /** A ping goes to every client this often; one that has not answered the previous ping is dropped. */
  pingIntervalMs: number;
  /** How often every client's token expiry, session and project assignment are checked again. */
  sessionCheckIntervalMs: number;
  /** On stop(), how long clients get to complete the closing handshake before being cut. */
  closeGraceMs: number;
  /**
   * Events are gathered this long and then written to each client in one batch: on loopback and
   * LAN the cost is one write system call per client per batch, nearly whatever the batch size.
   */
  flushDelayMs: number;
};

export const DEFAULT_LIVE_OPTIONS: LiveTelemetryOptions = {
  pingIntervalMs: 30_000,
  sessionCheckIntervalMs: 10_000,
  closeGraceMs: 1_000,
  flushDelayMs: 10,
  maxQueuedFrames: 1_024,
  maxQueuedBytes: 1024 * 1024,
  highWaterMarkBytes: 128 * 1024,
};

/** Close codes (RFC 6455 §7.4.2 leaves 4000–4999 to applications; ours mirror HTTP statuses). */
export const CloseCode = {
  /** The access token expired or its session was revoked: refresh, then reconnect. */
  Unauthorized: 4401,
  /** The filtered project_id is no longer one of the user's projects. */
  Forbidden: 4403,
  /** RFC 6455 §7.4.1: the endpoint is going away (server shutdown). */
  GoingAway: 1001,
} as const;
