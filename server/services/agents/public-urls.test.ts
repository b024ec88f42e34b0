import { describe, expect, it } from "vitest";
import { loadServerConfig } from "../../config.ts";
import {
  agentMqttUrl,
  installerAddress,
  installerServerUrl,
  isLoopbackHost,
  publicBaseUrl,
} from "./public-urls.ts";

const key = Buffer.alloc(32, 1).toString("base64");
const config = (env: Record<string, string> = {}) =>
  loadServerConfig({ TOTP_SECRET_ENCRYPTION_KEY: key, ...env });

describe("public URLs handed to agents and install scripts", () => {
  it("unset: the origin and host the request came in on, with the broker's port", () => {
    const c = config();
    expect(publicBaseUrl(c, "http://10.0.0.5:8080/api/edge/agents/enroll")).toBe("http://10.0.0.5:8080");
    expect(agentMqttUrl(c, "http://10.0.0.5:8080/api/edge/agents/enroll", 1883)).toBe("mqtt://10.0.0.5:1883");
    expect(agentMqttUrl(c, "http://[fd00::5]:8080/x", 1884)).toBe("mqtt://[fd00::5]:1884");
  });

  it("PUBLIC_URL: the base URL without a trailing slash, and its host for MQTT", () => {
    const c = config({ PUBLIC_URL: "https://caudal.example.com/caudal/" });
    expect(c.PUBLIC_URL).toBe("https://caudal.example.com/caudal");
    expect(publicBaseUrl(c, "http://10.0.0.5:8080/x")).toBe("https://caudal.example.com/caudal");
    expect(agentMqttUrl(c, "http://10.0.0.5:8080/x", 1883)).toBe("mqtt://caudal.example.com:1883");
  });

  it("PUBLIC_MQTT_URL wins for MQTT", () => {
    const c = config({
      PUBLIC_URL: "https://caudal.example.com",
      PUBLIC_MQTT_URL: "mqtts://mqtt.example.com:8883",
    });
    expect(agentMqttUrl(c, "http://10.0.0.5:8080/x", 1883)).toBe("mqtts://mqtt.example.com:8883");
  });

  it("refuses URLs of the wrong kind at start-up, naming the variable", () => {
    expect(() => config({ PUBLIC_URL: "caudal.example.com" })).toThrow(/PUBLIC_URL: must be an http/);
    expect(() => config({ PUBLIC_URL: "ftp://caudal.example.com" })).toThrow(/PUBLIC_URL/);
    expect(() => config({ PUBLIC_MQTT_URL: "https://mqtt.example.com" })).toThrow(/PUBLIC_MQTT_URL/);
    expect(() => config({ ENROLL_RATE_LIMIT: "0" })).toThrow(/ENROLL_RATE_LIMIT/);
  });
});

describe("the server URL an installer carries", () => {
  const unset = config();
  const local = { peer: "127.0.0.1", proxied: false };

  it("names a loopback host by its name or address, IPv4, IPv6 and mapped", () => {
    for (const host of [
      "localhost",
      "LOCALHOST",
      "app.localhost",
      "localhost.",
      "127.0.0.1",
      "127.8.9.10",
      "0.0.0.0",
    ])
      expect(isLoopbackHost(host), host).toBe(true);
    for (const host of ["[::1]", "::1", "[::]", "::ffff:127.0.0.1", "[::ffff:7f00:1]"])
      expect(isLoopbackHost(host), host).toBe(true);
    for (const host of ["caudal.plant.local", "10.0.0.5", "[fd00::5]", "localhost.example.com", "128.0.0.1"])
      expect(isLoopbackHost(host), host).toBe(false);
  });

  it("PUBLIC_URL unset: the request's origin; a loopback one only for a download from this machine", () => {
    expect(
      installerServerUrl(unset, { url: "http://10.0.0.5:8080/x", peer: "10.0.0.9", proxied: false }),
    ).toBe("http://10.0.0.5:8080");
    expect(installerServerUrl(unset, { url: "http://localhost:8080/x", ...local })).toBe(
      "http://localhost:8080",
    );
    expect(
      installerServerUrl(unset, { url: "http://[::1]:8080/x", peer: "::ffff:127.0.0.1", proxied: false }),
    ).toBe("http://[::1]:8080");
    // A port forward (docker run -p: the peer is the bridge's gateway), a proxy, an unknown peer.
    for (const request of [
      { url: "http://localhost:8080/x", peer: "172.17.0.1", proxied: false },
      { url: "http://127.0.0.1:8080/x", peer: "127.0.0.1", proxied: true },
      { url: "http://localhost:8080/x", peer: undefined, proxied: false },
    ])
      expect(() => installerServerUrl(unset, request), JSON.stringify(request)).toThrow(/set PUBLIC_URL/);
  });

  it("PUBLIC_URL set: always it", () => {
    const c = config({ PUBLIC_URL: "https://caudal.example.com" });
    expect(installerServerUrl(c, { url: "http://localhost:8080/x", peer: "172.17.0.1", proxied: true })).toBe(
      "https://caudal.example.com",
    );
    expect(installerAddress(c, { url: "http://localhost:8080/x", ...local })).toEqual({
      server_url: "https://caudal.example.com",
      source: "PUBLIC_URL",
      loopback: false,
    });
    expect(installerAddress(unset, { url: "http://localhost:8080/x", ...local })).toEqual({
      server_url: "http://localhost:8080",
      source: "request",
      loopback: true,
    });
  });
});
