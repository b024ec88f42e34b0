import { describe, expect, it } from "vitest";
import type { Permission } from "../../shared/roles.ts";
import { matchesReadableTopic } from "./topic-permissions.ts";

const readable = (filter: string, held: Permission[]) =>
  matchesReadableTopic(filter.split("/"), (p) => held.includes(p));
const both: Permission[] = ["telemetry:read", "config:read"];

describe("matchesReadableTopic (the whole filter; the project level stands for any project)", () => {
  it("grants wildcards that can reach something the role may read, at any level", () => {
    for (const filter of ["#", "+/#", "caudal/#", "caudal/v1/#", "caudal/v1/+/live/#", "caudal/+/p/agent/+"])
      expect(readable(filter, ["telemetry:read"]), filter).toBe(true);
    expect(readable("caudal/v1/p/agent/heartbeat", ["telemetry:read"])).toBe(false);
    expect(readable("caudal/v1/p/agent/heartbeat", ["config:read"])).toBe(true);
  });

  it("live values and batches are telemetry; configuration outcome and agent health are config", () => {
    expect(readable("caudal/v1/p/live/#", ["config:read"])).toBe(false);
    expect(readable("caudal/v1/p/live/+/+", ["telemetry:read"])).toBe(true);
    expect(readable("caudal/v1/p/agent/ack", ["telemetry:read"])).toBe(true);
    // A trailing # also matches its parent level [MQTT-4.7.1-2]: config/status is config:read.
    expect(readable("caudal/v1/p/config/#", ["config:read"])).toBe(true);
  });

  it("never for agent-only topics (the deployment, test-read requests) or where nothing is published", () => {
    expect(readable("caudal/v1/p/config", both)).toBe(false);
    expect(readable("caudal/v1/p/agent/request", both)).toBe(false);
    expect(readable("caudal/v1/p/+", both)).toBe(false);
    expect(readable("caudal/v1/p/live/+", both)).toBe(false);
    expect(readable("spBv1.0/#", both)).toBe(false);
    expect(readable("caudal/uns/#", both)).toBe(false);
    expect(readable("#", [])).toBe(false);
  });
});
