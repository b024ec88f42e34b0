import { describe, expect, it } from "vitest";
import { loadServerConfig } from "../../config.ts";
import { agentMqttUrl, publicBaseUrl } from "./public-urls.ts";

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
