import { z } from "zod";
import { MAX_READING_MAGNITUDE, NO_NUL_MESSAGE, withoutNul } from "../telemetry-limits.ts";
import { agentDeviceSchema, agentRuntimeConfigSchema } from "./agent-config.ts";

/**
 * The MQTT contract between caudal-agent, caudal-server and HMIs: topic → payload schema.
 * Every topic of a project starts with `caudal/v1/{project_id}/`.
 */
export const TOPIC_ROOT = "caudal/v1";

const level = z.enum(["debug", "info", "warn", "error"]);

/** A run of points of one series (asset, variable): [epoch ms, value] pairs, ascending. */
export const seriesPointsSchema = z.object({
  asset_id: z.uuid(),
  variable: z.string().min(1).max(128).refine(withoutNul, NO_NUL_MESSAGE),
  unit: z.string().max(32).refine(withoutNul, NO_NUL_MESSAGE).nullish(),
  points: z
    .array(
      z.tuple([
        z.number().int().nonnegative(),
        z.number().min(-MAX_READING_MAGNITUDE).max(MAX_READING_MAGNITUDE),
      ]),
    )
    .min(1),
});

/** A local alarm transition raised at the edge with the shared evaluator, synced inside a batch. */
export const alarmTransitionSchema = z.object({
  /** The agent's alarm id; the server keeps it, so a resent transition is idempotent. */
  id: z.uuid(),
  event: z.enum(["raised", "cleared"]),
  rule_id: z.uuid(),
  asset_id: z.uuid(),
  variable: z.string().min(1).max(128).refine(withoutNul, NO_NUL_MESSAGE),
  value: z.number(),
  alarm_type: z.enum(["high", "low", "critical_high", "critical_low"]),
  severity: z.enum(["info", "warning", "critical"]),
  message: z.string().max(500),
  /** Epoch ms of the reading that caused the transition. */
  at: z.number().int().nonnegative(),
});

export const payloads = {
  /** agent → server, QoS 1. `seq` increases by one per batch per agent, across restarts. */
  telemetry: z
    .object({
      agent_id: z.uuid(),
      seq: z.number().int().positive(),
      /** live: freshly polled; backlog: data buffered while the link was down. */
      lane: z.enum(["live", "backlog"]),
      series: z.array(seriesPointsSchema),
      alarms: z.array(alarmTransitionSchema).default([]),
    })
    .refine((b) => b.series.length > 0 || b.alarms.length > 0, {
      message: "a batch carries points or alarms",
    }),
  /**
   * server → agent, QoS 0 (a lost ack means the batch is sent again and answered as a duplicate),
   * after the batch is committed (or recognised as a duplicate).
   */
  ack: z.object({
    agent_id: z.uuid(),
    seq: z.number().int().positive(),
    accepted: z.number().int().nonnegative(),
    duplicate: z.boolean(),
    error: z.string().optional(),
    /**
     * The server takes binary batches (shared/mqtt/telemetry-frame.ts): the agent may send them on
     * this connection from now on. Absent from older servers, which take JSON only.
     */
    binary: z.literal(true).optional(),
  }),
  /** agent → server every 15 s. */
  heartbeat: z.object({
    agent_id: z.uuid(),
    agent_version: z.string(),
    uptime_seconds: z.number().int().nonnegative(),
    devices: z.array(
      z.object({
        device_id: z.uuid(),
        name: z.string(),
        state: z.enum(["ok", "failing", "disabled", "unsupported"]),
        last_error: z.string().nullish(),
        last_read_at: z.string().nullish(),
      }),
    ),
    buffer: z.object({
      batches: z.number().int().nonnegative(),
      points: z.number().int().nonnegative(),
      oldest_ts: z.number().int().nullable(),
      dropped_batches: z.number().int().nonnegative(),
    }),
    config: z.object({ version: z.number().int().nullable(), hash: z.string().nullable() }),
  }),
  /** agent → server. */
  logs: z.object({
    agent_id: z.uuid(),
    entries: z
      .array(
        z.object({
          level,
          category: z.string().max(64),
          message: z.string().max(4000),
          timestamp: z.iso.datetime(),
        }),
      )
      .min(1)
      .max(1000),
  }),
  /** server → agent, retained: the configuration to run. */
  config: z.object({
    deployment_id: z.uuid(),
    version: z.number().int().positive(),
    hash: z.string(),
    config: agentRuntimeConfigSchema,
  }),
  /** agent → server: the outcome of applying a configuration. */
  configStatus: z.object({
    agent_id: z.uuid(),
    deployment_id: z.uuid(),
    version: z.number().int().positive(),
    hash: z.string(),
    status: z.enum(["applied", "failed"]),
    error: z.string().nullish(),
  }),
  /** agent → server, retained; the broker publishes `offline` as the agent's last will. */
  status: z.object({
    status: z.enum(["online", "offline"]),
    agent_id: z.uuid().nullish(),
    at: z.iso.datetime().nullish(),
  }),
  /**
   * server → agent, not retained: read one device once with the configuration given (the server's
   * current one, deployed or not) and answer on `response`. Carries the OPC UA password: agent-only.
   */
  request: z.object({
    request_id: z.uuid(),
    /** test_read: read every variable once; browse: the children of `node_id` (OPC UA). */
    kind: z.enum(["test_read", "browse"]),
    device: agentDeviceSchema,
    /** browse only: the node whose children to list; null for the Objects folder. */
    node_id: z.string().max(4096).nullish(),
    timeout_ms: z.number().int().min(100).max(60_000),
  }),
  /** agent → server: the answer to a `request`. */
  response: z.object({
    agent_id: z.uuid(),
    request_id: z.uuid(),
    ok: z.boolean(),
    error: z.string().max(4000).nullish(),
    results: z
      .array(
        z.object({
          variable_id: z.uuid(),
          alias: z.string(),
          value: z.number().nullable(),
          quality: z.enum(["good", "device_exception", "timeout", "comm_error", "config_error"]),
          detail: z.string().max(4000).nullish(),
        }),
      )
      .max(10_000),
    /** browse only: the node's children. */
    nodes: z
      .array(
        z.object({
          node_id: z.string(),
          browse_name: z.string(),
          node_class: z.string(),
          data_type: z.string().nullable(),
        }),
      )
      .max(10_000)
      .optional(),
  }),
  /** server → HMIs, retained per series: the latest committed value. */
  live: z.object({
    asset_id: z.uuid(),
    variable: z.string(),
    value: z.number(),
    unit: z.string().nullish(),
    timestamp: z.iso.datetime(),
  }),
} as const;

export type TopicName = keyof typeof payloads;
export type Payload<T extends TopicName> = z.infer<(typeof payloads)[T]>;

export const topics = {
  telemetry: (projectId: string) => `${TOPIC_ROOT}/${projectId}/agent/telemetry`,
  ack: (projectId: string) => `${TOPIC_ROOT}/${projectId}/agent/ack`,
  heartbeat: (projectId: string) => `${TOPIC_ROOT}/${projectId}/agent/heartbeat`,
  logs: (projectId: string) => `${TOPIC_ROOT}/${projectId}/agent/logs`,
  config: (projectId: string) => `${TOPIC_ROOT}/${projectId}/config`,
  configStatus: (projectId: string) => `${TOPIC_ROOT}/${projectId}/config/status`,
  status: (projectId: string) => `${TOPIC_ROOT}/${projectId}/agent/status`,
  request: (projectId: string) => `${TOPIC_ROOT}/${projectId}/agent/request`,
  response: (projectId: string) => `${TOPIC_ROOT}/${projectId}/agent/response`,
  live: (projectId: string, assetId: string, variable: string) =>
    `${TOPIC_ROOT}/${projectId}/live/${assetId}/${encodeURIComponent(variable)}`,
} as const satisfies Record<TopicName, (...args: string[]) => string>;

const TOPIC_PATTERN = /^caudal\/v1\/([0-9a-f-]{36})\/(.+)$/;
const NAME_BY_SUFFIX: Record<string, TopicName> = {
  "agent/telemetry": "telemetry",
  "agent/ack": "ack",
  "agent/heartbeat": "heartbeat",
  "agent/logs": "logs",
  config: "config",
  "config/status": "configStatus",
  "agent/status": "status",
  "agent/request": "request",
  "agent/response": "response",
};

/** Splits a concrete topic into its project and contract name; null for anything outside the contract. */
export function parseTopic(topic: string): { projectId: string; name: TopicName } | null {
  const m = TOPIC_PATTERN.exec(topic);
  if (!m?.[1] || !m[2]) return null;
  if (m[2].startsWith("live/")) return { projectId: m[1], name: "live" };
  const name = NAME_BY_SUFFIX[m[2]];
  return name ? { projectId: m[1], name } : null;
}

/** The project a topic or topic filter is under, or null. Wildcards above the project level are not under any. */
export function projectOfTopic(topic: string): string | null {
  const m = TOPIC_PATTERN.exec(topic);
  return m?.[1] ?? null;
}
