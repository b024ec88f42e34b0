import { encodePayload, type UMetric, type UPayload } from "sparkplug-payload/lib/sparkplugbpayload.js";
import { REBIRTH_METRIC } from "../../../../shared/mqtt/hmi-topics.ts";
import { type SparkplugType, sparkplugValue } from "./datatypes.ts";
import { BD_SEQ_METRIC, NODE_METRICS } from "./node-metrics.ts";

/*
 * Sparkplug B 3.0 payloads, encoded with sparkplug-payload (Eclipse Tahu). Timestamps are ms UTC
 * [tck-id-payloads-timestamp-in-UTC]. Integers go where Tahu and Ignition read them: Int8–Int32 and
 * UInt8/UInt16 in int_value (two's complement, so -5 travels as 4294967291), UInt32 and the 64-bit
 * types in long_value. Data messages carry the datatype too, though the specification says it
 * SHOULD NOT [tck-id-payloads-metric-datatype-not-req]: Tahu's decoder (sparkplug-payload's
 * decodePayload) reads no value without it.
 */

/** Quality codes of the `Quality` property, an Int32 [tck-id-payloads-propertyset-quality-value-value]. */
export const QUALITY_GOOD = 192;
export const QUALITY_BAD = 0;

/** What a birth says about one metric. */
export type BirthMetric = {
  name: string;
  alias: number;
  type: SparkplugType;
  unit: string | null;
  /** Its current value (null: none yet) and that value's time. */
  value: number | null;
  ts: number;
  good: boolean;
};

/** One value in a DDATA. `historical`: older than a value already published (is_historical: not a current value). */
export type DataMetric = {
  alias: number;
  type: SparkplugType;
  value: number;
  ts: number;
  historical: boolean;
};

/** The agent's figures the node metrics carry (null: not reported yet). */
export type NodeInfo = {
  agentVersion: string | null;
  configVersion: number | null;
  bufferPoints: number | null;
};

export const encode = (payload: UPayload): Uint8Array => encodePayload(payload);

function nodeInfoMetrics(info: NodeInfo, ts: number, birth: boolean): UMetric[] {
  const { agentVersion, configVersion, bufferBacklog } = NODE_METRICS;
  const name = (n: string) => (birth ? { name: n } : {});
  return [
    {
      ...name(agentVersion.name),
      alias: agentVersion.alias,
      type: "String",
      value: info.agentVersion,
      timestamp: ts,
    },
    {
      ...name(configVersion.name),
      alias: configVersion.alias,
      type: "Int32",
      value: info.configVersion,
      timestamp: ts,
    },
    {
      ...name(bufferBacklog.name),
      alias: bufferBacklog.alias,
      type: "UInt64",
      value: info.bufferPoints,
      timestamp: ts,
    },
  ];
}

/**
 * NBIRTH: seq 0 [tck-id-payloads-nbirth-seq], bdSeq as an Int64
 * [tck-id-message-flow-edge-node-birth-publish-nbirth-payload-bdSeq], Node Control/Rebirth, a Boolean
 * false [tck-id-operational-behavior-data-commands-rebirth-value], and the node metrics.
 */
export function nbirth(now: number, bdSeq: number, info: NodeInfo): UPayload {
  return {
    timestamp: now,
    seq: 0,
    metrics: [
      { name: BD_SEQ_METRIC, type: "Int64", value: bdSeq, timestamp: now },
      {
        name: REBIRTH_METRIC,
        type: "Boolean",
        value: false,
        timestamp: now,
        properties: { readOnly: { type: "Boolean", value: false } },
      },
      ...nodeInfoMetrics(info, now, true),
    ],
  };
}

/** NDATA: the node metrics that changed. */
export function ndata(now: number, seq: number, info: NodeInfo): UPayload {
  return { timestamp: now, seq, metrics: nodeInfoMetrics(info, now, false) };
}

/** NDEATH: no seq [tck-id-payloads-ndeath-seq], only the bdSeq of the NBIRTH it ends [tck-id-topics-ndeath-payload]. */
export function ndeath(now: number, bdSeq: number): UPayload {
  return { timestamp: now, metrics: [{ name: BD_SEQ_METRIC, type: "Int64", value: bdSeq }] };
}

/** Current values in chronological order [tck-id-operational-behavior-data-publish-dbirth-order]. */
const byTime = <T extends { ts: number }>(metrics: readonly T[]): T[] =>
  [...metrics].sort((a, b) => a.ts - b.ts);

/**
 * DBIRTH: every metric of the device with name, alias, datatype, engUnit, Quality and its current
 * value, or is_null [tck-id-operational-behavior-data-publish-dbirth-values].
 */
export function dbirth(now: number, seq: number, metrics: readonly BirthMetric[]): UPayload {
  return {
    timestamp: now,
    seq,
    metrics: byTime(metrics.map((m) => ({ ...m, ts: m.value === null ? now : m.ts }))).map((m) => ({
      name: m.name,
      alias: m.alias,
      type: m.type,
      value: m.value === null ? null : sparkplugValue(m.type, m.value),
      timestamp: m.ts,
      properties: {
        engUnit: { type: "String", value: m.unit ?? "" },
        Quality: { type: "Int32", value: m.good && m.value !== null ? QUALITY_GOOD : QUALITY_BAD },
      },
    })),
  };
}

/**
 * DDATA: values by alias, without names [tck-id-payloads-alias-data-cmd-requirement]; current
 * values in chronological order, historical ones in the order given.
 */
export function ddata(now: number, seq: number, metrics: readonly DataMetric[]): UPayload {
  return {
    timestamp: now,
    seq,
    metrics: (metrics.some((m) => m.historical) ? metrics : byTime(metrics)).map((m) => ({
      alias: m.alias,
      type: m.type,
      value: sparkplugValue(m.type, m.value),
      timestamp: m.ts,
      ...(m.historical ? { isHistorical: true } : {}),
    })),
  };
}

/** DDEATH: the device stopped reporting (comm_loss) or was deleted. */
export function ddeath(now: number, seq: number): UPayload {
  return { timestamp: now, seq, metrics: [] };
}
