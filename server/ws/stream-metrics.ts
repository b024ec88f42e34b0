import { Counter, Gauge, type Registry } from "prom-client";

type StreamTotals = {
  clients: number;
  queuedBytes: number;
  bufferedBytes: number;
  sent: number;
  dropped: number;
};

/**
 * The live stream's Prometheus metrics on this server's registry, read from the stream's own
 * counters at scrape time so the fan-out path never touches prom-client.
 */
export function registerStreamMetrics(registry: Registry, read: () => StreamTotals): void {
  if (registry.getSingleMetric("caudal_ws_clients")) return;
  new Gauge({
    name: "caudal_ws_clients",
    help: "Connected live telemetry WebSocket clients",
    registers: [registry],
    collect() {
      this.set(read().clients);
    },
  });
  new Gauge({
    name: "caudal_ws_pending_bytes",
    help: "Bytes waiting for slow live-stream clients (their queues plus unsent socket data)",
    registers: [registry],
    collect() {
      const totals = read();
      this.set(totals.queuedBytes + totals.bufferedBytes);
    },
  });
  let sent = 0;
  new Counter({
    name: "caudal_ws_messages_sent_total",
    help: "Messages written to live telemetry WebSocket clients",
    registers: [registry],
    collect() {
      const now = read().sent;
      this.inc(Math.max(0, now - sent));
      sent = now;
    },
  });
  let dropped = 0;
  new Counter({
    name: "caudal_ws_events_dropped_total",
    help: "Events dropped for live-stream clients that fell behind (each client was told how many)",
    registers: [registry],
    collect() {
      const now = read().dropped;
      this.inc(Math.max(0, now - dropped));
      dropped = now;
    },
  });
}
