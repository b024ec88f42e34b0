import type { ServerConfig } from "../../config.ts";

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
