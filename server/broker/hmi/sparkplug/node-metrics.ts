import { REBIRTH_METRIC } from "../../../../shared/mqtt/hmi-topics.ts";

/**
 * The edge node's own metrics (NBIRTH, NDATA). Aliases are unique across the node's metrics
 * (Sparkplug B 3.0 §6.4.20, [tck-id-payloads-alias-uniqueness]): the node's are fixed here, the
 * devices' are numbered from FIRST_DEVICE_ALIAS up.
 */
export const NODE_METRICS = {
  rebirth: { name: REBIRTH_METRIC, alias: 1 },
  agentVersion: { name: "Node Info/Agent Version", alias: 2 },
  configVersion: { name: "Node Info/Configuration Version", alias: 3 },
  bufferBacklog: { name: "Node Info/Buffer Backlog", alias: 4 },
} as const;

/** Sparkplug B 3.0 §6.4.20: bdSeq has no alias, so the NDEATH (the will, elsewhere) matches by name. */
export const BD_SEQ_METRIC = "bdSeq";

export const FIRST_DEVICE_ALIAS = 100;
