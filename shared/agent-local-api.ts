/**
 * What the agent's local API answers (agent/local-api.ts) and its local page reads
 * (console/agent-page/). The agent checks its answers against these types (`satisfies`).
 */

export type LocalDeviceState = "ok" | "failing" | "disabled" | "unsupported";

/** How the agent's MQTT link stands (agent/sync/link-state.ts). */
export type LocalLinkState = "connecting" | "connected" | "disconnected" | "refused";

export type LocalLink = {
  state: LocalLinkState;
  /** When the link entered this state. */
  since: string;
  last_connected_at: string | null;
  /** When the server last closed a connection of this agent. */
  lost_at: string | null;
  /** While the broker refuses the agent's credentials (its token was replaced). */
  refused: {
    /** The CONNACK code: 4 or 5 (MQTT 3.1.1), 0x86 or 0x87 (MQTT 5). */
    code: number;
    answer: string;
    first_at: string;
    attempts: number;
    next_attempt_at: string | null;
  } | null;
  /** In plain words, why the link is down and what to do; null while connected. */
  reason: string | null;
};

/** GET /status. */
export type LocalStatus = {
  agent_id: string;
  project_id: string;
  agent_version: string;
  uptime_seconds: number;
  /** Whether the MQTT link to the server is up. */
  connected: boolean;
  /** The link's state and why it is down; null before the sync client starts. */
  link: LocalLink | null;
  last_sync: string | null;
  /** The configuration the agent runs, or null before its first deployment. */
  config: { version: number; hash: string; applied_at: string } | null;
  devices: {
    device_id: string;
    name: string;
    state: LocalDeviceState;
    last_error: string | null;
    last_read_at: string | null;
    reconnects: number;
  }[];
  /** Batches stored and not yet acknowledged by the server. */
  buffer: {
    batches: number;
    points: number;
    bytes: number;
    oldest: string | null;
    stored_points: number;
    dropped_batches: number;
    dropped_points: number;
  };
  /** The newest reading of each polled variable. */
  last_values: {
    alias: string;
    device_id: string;
    value: number | null;
    /** A driver quality (agent/drivers/driver.ts) or `out_of_range`. */
    quality: string;
    detail?: string;
    unit?: string;
    ts: string;
  }[];
};

/** One entry of GET /alarms: active local alarms and those returned to normal in the last 24 h. */
export type LocalAlarmEntry = {
  id: string;
  rule_id: string;
  asset_id: string;
  variable: string;
  value: number;
  alarm_type: string;
  severity: string;
  message: string;
  active: boolean;
  raised_at: string;
  returned_at: string | null;
};
