import { describe, expect, it } from "vitest";
import { brokerOptions } from "./broker-options.ts";

describe("the broker URL as mqtt.js options (WHATWG URL, not url.parse)", () => {
  it("TCP and TLS: the bare host and the port; no path", () => {
    expect(brokerOptions("mqtt://10.0.0.5:1883")).toEqual({
      protocol: "mqtt",
      host: "10.0.0.5",
      hostname: "10.0.0.5",
      port: 1883,
    });
    expect(brokerOptions("mqtts://caudal.example.com:8883/ignored")).toEqual({
      protocol: "mqtts",
      host: "caudal.example.com",
      hostname: "caudal.example.com",
      port: 8883,
    });
  });

  it("an IPv6 literal: bare for a socket, bracketed in a WebSocket URL", () => {
    expect(brokerOptions("mqtt://[fd00::5]:1884")).toMatchObject({ host: "fd00::5", hostname: "fd00::5" });
    expect(brokerOptions("ws://[fd00::5]:8080/mqtt")).toMatchObject({
      host: "fd00::5",
      hostname: "[fd00::5]",
      port: 8080,
      path: "/mqtt",
    });
  });

  it("a scheme's default port is left to mqtt.js; a WebSocket keeps its path and query", () => {
    const wss = brokerOptions("wss://caudal.example.com/mqtt?x=1");
    expect(wss).toEqual({
      protocol: "wss",
      host: "caudal.example.com",
      hostname: "caudal.example.com",
      path: "/mqtt?x=1",
    });
    expect(brokerOptions("mqtt://broker").port).toBeUndefined();
  });
});
