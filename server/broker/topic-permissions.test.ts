import { describe, expect, it } from "vitest";
import { onlyAgentTopics, permissionsForFilter } from "./topic-permissions.ts";

const perms = (filter: string) => [...permissionsForFilter(filter.split("/"))].sort();

describe("permissionsForFilter (levels after caudal/v1/{project_id}/)", () => {
  it("asks for every permission a wildcard can reach", () => {
    expect(perms("#")).toEqual(["config:read", "telemetry:read"]);
    expect(perms("agent/#")).toEqual(["config:read", "telemetry:read"]);
    expect(perms("+/status")).toEqual(["config:read"]);
  });

  it("live values and batches are telemetry; configuration and agent health are config", () => {
    expect(perms("live/#")).toEqual(["telemetry:read"]);
    expect(perms("live/+/+")).toEqual(["telemetry:read"]);
    expect(perms("agent/telemetry")).toEqual(["telemetry:read"]);
    expect(perms("agent/ack")).toEqual(["telemetry:read"]);
    // The deployment itself is agent-only (it carries the OPC UA password); its outcome is config.
    expect(perms("config")).toEqual([]);
    // A trailing # also matches its parent level [MQTT-4.7.1-2]: config and config/status.
    expect(perms("config/#")).toEqual(["config:read"]);
    expect(perms("agent/heartbeat")).toEqual(["config:read"]);
  });

  it("a filter that matches no contract topic needs nothing (nothing is ever published there)", () => {
    expect(perms("live/+")).toEqual([]);
    expect(perms("other")).toEqual([]);
  });
});

describe("onlyAgentTopics", () => {
  it("is true for a filter that can match the agent-only config topic and nothing people receive", () => {
    const only = (filter: string) => onlyAgentTopics(filter.split("/"));
    expect(only("config")).toBe(true);
    expect(only("agent/request")).toBe(true);
    expect(only("agent/response")).toBe(false);
    expect(only("+")).toBe(true);
    expect(only("config/#")).toBe(false);
    expect(only("#")).toBe(false);
    expect(only("agent/heartbeat")).toBe(false);
  });
});
