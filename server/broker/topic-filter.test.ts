import { describe, expect, it } from "vitest";
import { filterMatches } from "./topic-filter.ts";

describe("filterMatches", () => {
  // The examples of MQTT 3.1.1 §4.7.1 and §4.7.2.
  it.each([
    ["sport/tennis/player1/#", "sport/tennis/player1", true],
    ["sport/tennis/player1/#", "sport/tennis/player1/ranking", true],
    ["sport/tennis/player1/#", "sport/tennis/player1/score/wimbledon", true],
    ["sport/#", "sport", true],
    ["#", "sport/tennis", true],
    ["sport/tennis/+", "sport/tennis/player1", true],
    ["sport/tennis/+", "sport/tennis/player1/ranking", false],
    ["sport/+", "sport", false],
    ["sport/+", "sport/", true],
    ["+/+", "/finance", true],
    ["/+", "/finance", true],
    ["+", "/finance", false],
    ["#", "$SYS/broker/clients", false],
    ["+/monitor/Clients", "$SYS/monitor/Clients", false],
    ["$SYS/#", "$SYS/broker/clients", true],
    ["$SYS/monitor/+", "$SYS/monitor/Clients", true],
    ["caudal/v1/p/agent/ack", "caudal/v1/p/agent/ack", true],
    ["caudal/v1/p/agent/ack", "caudal/v1/p/agent/acks", false],
    ["caudal/v1/p/agent/ack", "caudal/v1/p/agent", false],
    ["caudal/v1/+/agent/#", "caudal/v1/p/agent/telemetry", true],
    ["caudal/v1/+/live/#", "caudal/v1/p/agent/telemetry", false],
  ])("%s against %s: %s", (filter, topic, expected) => {
    expect(filterMatches(filter, topic)).toBe(expected);
  });
});
