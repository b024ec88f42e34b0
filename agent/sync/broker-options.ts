import type { IClientOptions } from "mqtt";

type BrokerOptions = Pick<IClientOptions, "protocol" | "host" | "hostname" | "port" | "path">;

/**
 * The broker URL as mqtt.js's connection options, parsed with the WHATWG URL API. Given the URL
 * as a string, mqtt.connect parses it with Node's legacy url.parse(), which Node deprecates
 * (DEP0169) and warns about on every start of the bundled agent, whose code is not under
 * node_modules (Node warns only for callers outside it).
 */
export function brokerOptions(mqttUrl: string): BrokerOptions {
  const url = new URL(mqttUrl);
  const protocol = url.protocol.replace(/:$/, "") as NonNullable<IClientOptions["protocol"]>;
  const webSocket = protocol === "ws" || protocol === "wss";
  // URL keeps an IPv6 literal's brackets: a socket wants the address bare, a WebSocket URL (which
  // mqtt.js builds from `hostname`) wants them.
  const bare = url.hostname.replace(/^\[(.*)\]$/, "$1");
  const options: BrokerOptions = { protocol, host: bare, hostname: webSocket ? url.hostname : bare };
  // An empty port is the scheme's default: mqtt.js fills it in (1883, 8883, 80 or 443).
  if (url.port !== "") options.port = Number(url.port);
  // Only a WebSocket has a path (mqtt.js drops it for TCP and TLS too).
  if (webSocket) options.path = `${url.pathname}${url.search}`;
  return options;
}
