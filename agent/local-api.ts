import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { CaudalAgent } from "./agent.ts";

/**
 * A small read-only HTTP API, so an operator sees what the agent is doing with the WAN down:
 * /health, /status, /alarms, /metrics. It has no authentication: it listens on `host` (the file
 * config's local_api_host, loopback by default).
 */
export class LocalApi {
  readonly #agent: CaudalAgent;
  readonly #host: string;
  readonly #port: number;
  #server: Server | undefined;

  constructor(agent: CaudalAgent, host: string, port: number) {
    this.#agent = agent;
    this.#host = host;
    this.#port = port;
  }

  get port(): number {
    return (this.#server?.address() as AddressInfo | null)?.port ?? 0;
  }

  start(): Promise<void> {
    const server = createServer((req, res) => {
      void this.#handle(req.method ?? "GET", (req.url ?? "/").split("?")[0] ?? "/")
        .then(({ status, type, body }) => {
          res.writeHead(status, {
            "content-type": type,
            "x-powered-by": "Caudal/1.0",
            "cache-control": "no-store",
          });
          res.end(body);
        })
        .catch((err: unknown) => {
          res.writeHead(500, { "content-type": "application/json" });
          res.end(
            JSON.stringify({ error: "Internal", message: err instanceof Error ? err.message : String(err) }),
          );
        });
    });
    this.#server = server;
    return new Promise((resolve, reject) => {
      server.once("error", reject);
      server.listen(this.#port, this.#host, () => resolve());
    });
  }

  stop(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    if (!server) return Promise.resolve();
    return new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  async #handle(method: string, path: string): Promise<{ status: number; type: string; body: string }> {
    const json = (status: number, body: unknown) => ({
      status,
      type: "application/json",
      body: JSON.stringify(body),
    });
    if (method !== "GET")
      return json(405, { error: "MethodNotAllowed", message: "the local API is read-only" });
    switch (path) {
      case "/health": {
        const s = this.#agent.summary();
        const failing = s.devices.filter((d) => d.state === "failing").length;
        return json(200, {
          status: failing > 0 || !s.connected ? "degraded" : "ok",
          connected: s.connected,
          devices_failing: failing,
          buffer_batches: s.buffer.batches,
          uptime_seconds: s.uptime_seconds,
        });
      }
      case "/status":
        return json(200, this.#agent.status());
      case "/alarms":
        return json(
          200,
          this.#agent.localAlarms().map((a) => ({
            ...a,
            active: a.returned_at === null,
            raised_at: new Date(a.raised_at).toISOString(),
            returned_at: a.returned_at === null ? null : new Date(a.returned_at).toISOString(),
          })),
        );
      case "/metrics":
        return {
          status: 200,
          type: this.#agent.metrics.registry.contentType,
          body: await this.#agent.metrics.registry.metrics(),
        };
      default:
        return json(404, { error: "NotFound", message: `no route for ${path}` });
    }
  }
}
