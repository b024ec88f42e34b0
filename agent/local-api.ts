import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { isIP } from "node:net";
import type { LocalAlarmEntry, LocalStatus } from "../shared/agent-local-api.ts";
import { OWN_FILES_PAGE_CSP } from "../shared/content-security-policy.ts";
import type { CaudalAgent } from "./agent.ts";
import { type LocalPageFiles, localPageFiles } from "./local-page/page-files.ts";

type Reply = { status: number; type: string; body: string; headers?: Record<string, string> };

function json(status: number, body: unknown): Reply {
  return { status, type: "application/json", body: JSON.stringify(body) };
}

/**
 * True when a request's Host header names this agent: an IP address, localhost, or one of the
 * configured host names. A page on another site that rebinds its own name to the agent's address
 * sends its own name, and is refused.
 */
export function hostAllowed(host: string | undefined, hostnames: readonly string[]): boolean {
  if (host === undefined) return false;
  const name = host.startsWith("[") ? host.slice(1, host.indexOf("]")) : host.replace(/:\d+$/, "");
  const lower = name.toLowerCase();
  return isIP(name) !== 0 || lower === "localhost" || hostnames.some((h) => h.toLowerCase() === lower);
}

/**
 * A small read-only HTTP API, so an operator sees what the agent is doing with the WAN down:
 * /health, /status, /alarms, /metrics, and at `/` a page showing them (console/agent-page/). It
 * has no authentication: it listens on `host` (the file config's local_api_host, loopback by
 * default), and answers only requests addressed to it by IP address, localhost or a configured host
 * name (hostAllowed).
 */
export class LocalApi {
  readonly #agent: CaudalAgent;
  readonly #host: string;
  readonly #port: number;
  readonly #hostnames: readonly string[];
  #server: Server | undefined;

  constructor(agent: CaudalAgent, host: string, port: number, hostnames: readonly string[] = []) {
    this.#agent = agent;
    this.#host = host;
    this.#port = port;
    this.#hostnames = hostnames;
  }

  get port(): number {
    return (this.#server?.address() as AddressInfo | null)?.port ?? 0;
  }

  start(): Promise<void> {
    const server = createServer((req, res) => {
      const reply = hostAllowed(req.headers.host, this.#hostnames)
        ? this.#handle(req.method ?? "GET", (req.url ?? "/").split("?")[0] ?? "/")
        : Promise.resolve(
            json(403, {
              error: "Forbidden",
              message: `this agent does not answer to the host name ${req.headers.host ?? "(none)"}; use its IP address, or add the name to local_api_hostnames`,
            }),
          );
      void reply
        .then(({ status, type, body, headers }) => {
          res.writeHead(status, {
            "content-type": type,
            "x-powered-by": "Caudal/1.0",
            "cache-control": "no-store",
            "x-content-type-options": "nosniff",
            ...headers,
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

  async #handle(method: string, path: string): Promise<Reply> {
    if (method !== "GET")
      return json(405, { error: "MethodNotAllowed", message: "the local API is read-only" });
    switch (path) {
      case "/health": {
        const s = this.#agent.summary();
        const failing = s.devices.filter((d) => d.state === "failing").length;
        return json(200, {
          status: failing > 0 || !s.connected ? "degraded" : "ok",
          connected: s.connected,
          // Why the link is down, in plain words (e.g. its credentials refused: re-enroll it).
          link: s.link?.state ?? "connecting",
          reason: s.link?.reason ?? null,
          devices_failing: failing,
          buffer_batches: s.buffer.batches,
          uptime_seconds: s.uptime_seconds,
        });
      }
      case "/status":
        return json(200, this.#agent.status() satisfies LocalStatus);
      case "/alarms":
        return json(
          200,
          this.#agent.localAlarms().map(
            (a): LocalAlarmEntry => ({
              ...a,
              active: a.returned_at === null,
              raised_at: new Date(a.raised_at).toISOString(),
              returned_at: a.returned_at === null ? null : new Date(a.returned_at).toISOString(),
            }),
          ),
        );
      case "/metrics":
        return {
          status: 200,
          type: this.#agent.metrics.registry.contentType,
          body: await this.#agent.metrics.registry.metrics(),
        };
      default:
        if (path === "/" || path.startsWith("/assets/")) return this.#page(path);
        return json(404, { error: "NotFound", message: `no route for ${path}` });
    }
  }

  async #page(path: string): Promise<Reply> {
    let files: LocalPageFiles;
    try {
      files = await localPageFiles();
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      return json(503, {
        error: "Unavailable",
        message: `the local page could not be built (${why}); the JSON endpoints still answer`,
      });
    }
    const file = files[path];
    if (!file) return json(404, { error: "NotFound", message: `the local page has no file ${path}` });
    return {
      status: 200,
      type: file.type,
      body: file.body,
      headers: { "content-security-policy": OWN_FILES_PAGE_CSP },
    };
  }
}
