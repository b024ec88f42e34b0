import { randomUUID } from "node:crypto";
import type { AgentVariable } from "../../shared/mqtt/agent-config.ts";

/** A deployed variable addressed by `address` (OPC UA, S7, DNP3), for driver tests and benches. */
export function agentVariable(
  alias: string,
  address: string,
  data_type: AgentVariable["data_type"] = "float64",
  poll_interval_ms = 1000,
): AgentVariable {
  return {
    id: randomUUID(),
    alias,
    data_type,
    register_address: null,
    register_kind: "holding",
    word_order: "ABCD",
    scale_factor: null,
    unit: null,
    address,
    poll_interval_ms,
    deadband: 0,
  };
}
