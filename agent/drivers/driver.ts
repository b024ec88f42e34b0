import type { AgentDevice, AgentVariable } from "../../shared/mqtt/agent-config.ts";

/**
 * Quality of one reading. Protocol-level refusals (a Modbus exception, an OPC UA bad status)
 * are data, not crashes: the tag reports the quality and the device keeps polling.
 */
export type Quality = "good" | "device_exception" | "timeout" | "comm_error" | "config_error";

export type TagResult = {
  variableId: string;
  value: number | null;
  quality: Quality;
  detail?: string;
};

/** One child of a browsed node (OPC UA). */
export type BrowseNode = {
  node_id: string;
  browse_name: string;
  node_class: string;
  data_type: string | null;
};

/** One connection to one device. At most one request is in flight per driver. */
export interface Driver {
  connect(): Promise<void>;
  /** Reads every given variable; never rejects for a per-tag failure. Rejects when the link is lost. */
  read(variables: readonly AgentVariable[]): Promise<TagResult[]>;
  close(): Promise<void>;
  readonly connected: boolean;
  /** Protocols with an address space (OPC UA): the children of a node, null for the root of data. */
  browse?(nodeId: string | null): Promise<BrowseNode[]>;
}

export type DriverFactory = (device: AgentDevice, options: { timeoutMs: number }) => Driver;

/** Thrown by a driver when the link itself failed: the poller reconnects with backoff. */
export class LinkError extends Error {}
