import { Counter, collectDefaultMetrics, Gauge, Registry } from "prom-client";

export type AgentMetrics = ReturnType<typeof createAgentMetrics>;

export function createAgentMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "caudal_agent_" });
  return {
    registry,
    polledValues: new Counter({
      name: "caudal_agent_polled_values_total",
      help: "Tag values read from devices, by quality",
      labelNames: ["quality"] as const,
      registers: [registry],
    }),
    storedPoints: new Counter({
      name: "caudal_agent_stored_points_total",
      help: "Points committed to the local store (after report-by-exception)",
      registers: [registry],
    }),
    droppedBatches: new Counter({
      name: "caudal_agent_buffer_dropped_batches_total",
      help: "Batches dropped because the buffer reached buffer_max_mb (oldest first)",
      registers: [registry],
    }),
    droppedPoints: new Counter({
      name: "caudal_agent_buffer_dropped_points_total",
      help: "Points in batches dropped because the buffer reached buffer_max_mb",
      registers: [registry],
    }),
    bufferBatches: new Gauge({
      name: "caudal_agent_buffer_batches",
      help: "Batches waiting for acknowledgement",
      registers: [registry],
    }),
    bufferPoints: new Gauge({
      name: "caudal_agent_buffer_points",
      help: "Points waiting for acknowledgement",
      registers: [registry],
    }),
    bufferBytes: new Gauge({
      name: "caudal_agent_buffer_bytes",
      help: "Bytes of batches waiting for acknowledgement",
      registers: [registry],
    }),
    connected: new Gauge({
      name: "caudal_agent_broker_connected",
      help: "1 while connected to the broker",
      registers: [registry],
    }),
  };
}
