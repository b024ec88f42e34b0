/**
 * The edge node's own metrics (NBIRTH, NDATA). An alias is "a unique number across this Edge
 * Node's entire set of metrics" [tck-id-payloads-alias-uniqueness]: the node's are fixed here, the
 * devices' are numbered from FIRST_DEVICE_ALIAS up. Node Control/Rebirth has none
 * [tck-id-operational-behavior-data-commands-rebirth-name-aliases], so any host can ask for a
 * rebirth by name, and bdSeq has none either (the NDEATH carries it by name).
 */
export const NODE_METRICS = {
  agentVersion: { name: "Node Info/Agent Version", alias: 1 },
  configVersion: { name: "Node Info/Configuration Version", alias: 2 },
  bufferBacklog: { name: "Node Info/Buffer Backlog", alias: 3 },
} as const;

export const BD_SEQ_METRIC = "bdSeq";

export const FIRST_DEVICE_ALIAS = 100;
