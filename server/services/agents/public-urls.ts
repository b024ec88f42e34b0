import { isIP } from "node:net";
import type { ServerConfig } from "../../config.ts";
import { AppError } from "../../errors.ts";

type UrlConfig = Pick<ServerConfig, "PUBLIC_URL" | "PUBLIC_MQTT_URL">;

/**
 * The base URL agents and install scripts reach this server on: PUBLIC_URL when configured,
 * otherwise the origin the request came in on (its Host header). No trailing slash.
 */
export function publicBaseUrl(config: UrlConfig, requestUrl: string): string {
  return config.PUBLIC_URL ?? new URL(requestUrl).origin;
}

/**
 * The broker URL an enrolled agent connects to: PUBLIC_MQTT_URL when configured, otherwise plain
 * MQTT on the broker's port at PUBLIC_URL's host, or at the host the request came in on.
 */
export function agentMqttUrl(config: UrlConfig, requestUrl: string, mqttPort: number): string {
  if (config.PUBLIC_MQTT_URL) return config.PUBLIC_MQTT_URL;
  // URL.hostname keeps an IPv6 literal's brackets, as a URL needs them.
  const host = new URL(config.PUBLIC_URL ?? requestUrl).hostname;
  return `mqtt://${host}:${mqttPort}`;
}

/** What an installer download tells about where it came from (routes/distribution/installer-request.ts). */
export type InstallerRequest = {
  /** The request's URL: its origin is the host name the client reached the server by. */
  url: string;
  /** The peer's address (the TCP connection's), when known. */
  peer: string | undefined;
  /** Whether it carries a proxy's headers (Forwarded, X-Forwarded-*, X-Real-IP), which are not trusted. */
  proxied: boolean;
};

/** A host name or address that names only the machine it is used on: an agent elsewhere cannot reach it. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname
    .toLowerCase()
    .replace(/^\[(.*)\]$/, "$1")
    .replace(/\.$/, "");
  if (host === "localhost" || host.endsWith(".localhost")) return true;
  if (isIP(host) === 4) return host.startsWith("127.") || host === "0.0.0.0";
  if (isIP(host) === 6) {
    // ::1, the unspecified ::, and an IPv4-mapped loopback (URL writes ::ffff:127.0.0.1 as ::ffff:7f00:1).
    const mapped = /^::ffff:(?:127\.|7f[0-9a-f]{2}:)/.exec(host);
    return host === "::1" || host === "::" || mapped !== null;
  }
  return false;
}

/**
 * The server URL an installer (Linux install script, MSI) carries. PUBLIC_URL when set. Unset, the
 * origin the request came in on: the host name the downloading machine reached this server by.
 * A loopback name (localhost, 127.0.0.1) is kept only for a download made on this machine itself;
 * one that came from elsewhere through it (a proxy or a port forward on this machine: the peer is
 * not this machine, or proxy headers are present) is refused, since the agent it installs could
 * never reach "localhost". No proxy header is trusted for the address itself: PUBLIC_URL is the
 * way to name it behind a proxy.
 */
export function installerServerUrl(config: UrlConfig, request: InstallerRequest): string {
  if (config.PUBLIC_URL) return config.PUBLIC_URL;
  const origin = new URL(request.url);
  if (!isLoopbackHost(origin.hostname)) return origin.origin;
  const local = request.peer !== undefined && isLoopbackHost(request.peer) && !request.proxied;
  if (local) return origin.origin;
  throw new AppError(
    "Conflict",
    `this request reached the server as ${origin.host} from another machine (through a proxy or a port forward), and an installer that names ${origin.origin} could not reach this server from there; set PUBLIC_URL to the address agents reach this server on (e.g. http://caudal.plant.local:8080), or open the console by that address`,
  );
}

/** What the console shows above the installers: the address they carry, and whether it was configured. */
export type InstallerAddress = {
  server_url: string;
  source: "PUBLIC_URL" | "request";
  /** The address names only the server's own machine: agents elsewhere cannot reach it. */
  loopback: boolean;
};

/** The address an installer downloaded by this request would carry (409 as installerServerUrl refuses). */
export function installerAddress(config: UrlConfig, request: InstallerRequest): InstallerAddress {
  const url = installerServerUrl(config, request);
  return {
    server_url: url,
    source: config.PUBLIC_URL ? "PUBLIC_URL" : "request",
    loopback: isLoopbackHost(new URL(url).hostname),
  };
}
