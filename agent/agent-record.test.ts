import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { AgentDevice, AgentVariable } from "../shared/mqtt/agent-config.ts";
import { agentFileConfigSchema, configuredRunConfig } from "../shared/mqtt/agent-file-config.ts";
import { CaudalAgent } from "./agent.ts";
import { AgentLog } from "./agent-log.ts";
import { type Driver, type DriverFactory, LinkError, type TagResult } from "./drivers/driver.ts";

const variable = (alias: string): AgentVariable => ({
  id: randomUUID(),
  alias,
  data_type: "float32",
  register_address: 0,
  register_kind: "holding",
  word_order: "ABCD",
  scale_factor: null,
  unit: "bar",
  address: null,
  poll_interval_ms: 100,
  deadband: 0,
});

/**
 * A device whose first `polls.max` reads answer three results: a good value, one beyond ±1e15, a
 * refusal. Later reads fail as a lost link does, so what was recorded stays put.
 */
function threeTagDriver(polls: { n: number; max: number }): DriverFactory {
  return () => {
    let connected = false;
    const driver: Driver = {
      get connected() {
        return connected;
      },
      async connect() {
        connected = true;
      },
      async read(variables): Promise<TagResult[]> {
        if (polls.n === polls.max) throw new LinkError("paused");
        polls.n += 1;
        const [good, huge, refused] = variables;
        if (!good || !huge || !refused) throw new Error("expected three variables");
        return [
          { variableId: good.id, value: 1.5 + polls.n, quality: "good" },
          { variableId: huge.id, value: 1e16, quality: "good" },
          {
            variableId: refused.id,
            value: null,
            quality: "device_exception",
            detail: "illegal data address",
          },
        ];
      },
      async close() {
        connected = false;
      },
    };
    return driver;
  };
}

describe("the agent's recording of polled values", () => {
  const cleanup: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });

  it("shows each tag's newest reading, keeps values beyond ±1e15 out of the batches, and counts every quality", async () => {
    const dir = mkdtempSync(join(tmpdir(), "caudal-agent-record-"));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const projectId = randomUUID();
    const polls = { n: 0, max: 3 };
    const agent = new CaudalAgent(
      configuredRunConfig(
        agentFileConfigSchema.parse({
          version: 1,
          mqtt_url: "mqtt://127.0.0.1:1",
          project_id: projectId,
          agent_token: "cat_agent-record-test-token",
          data_dir: dir,
          local_api_port: 0,
        }),
      ),
      {
        log: new AgentLog({ write: () => {} }),
        drivers: threeTagDriver(polls),
        timing: { timeoutMs: 1000, minBackoffMs: 60_000, maxBackoffMs: 60_000 },
      },
    );
    cleanup.push(() => agent.stop());
    await agent.start();
    const device: AgentDevice = {
      id: randomUUID(),
      asset_id: randomUUID(),
      name: "plc",
      protocol: "modbus_tcp",
      host: "127.0.0.1",
      port: 502,
      slave_id: 1,
      variables: [variable("level"), variable("garbage"), variable("missing")],
    };
    await agent.applyLocalConfig({ project_id: projectId, devices: [device], alert_rules: [] });
    while (agent.status().devices[0]?.state !== "failing") await new Promise((r) => setTimeout(r, 20));

    const last = agent.status().last_values;
    expect(last.map(({ ts: _, ...v }) => v)).toEqual([
      { alias: "level", device_id: device.id, value: 4.5, unit: "bar", quality: "good" },
      {
        alias: "garbage",
        device_id: device.id,
        value: 1e16,
        unit: "bar",
        quality: "out_of_range",
        detail: "beyond ±1e15: check data_type, word_order and scale_factor",
      },
      {
        alias: "missing",
        device_id: device.id,
        value: null,
        unit: "bar",
        quality: "device_exception",
        detail: "illegal data address",
      },
    ]);
    expect(last.every((v) => !Number.isNaN(Date.parse(v.ts)))).toBe(true);

    const counted = Object.fromEntries(
      (await agent.metrics.polledValues.get()).values.map((v) => [String(v.labels.quality), v.value]),
    );
    // Each of the 3 polls: two good readings (one of them then out of range) and one refusal.
    expect(counted).toEqual({ good: 6, out_of_range: 3, device_exception: 3 });
    // Only "level" reaches the outbox, once per poll (its value moves every time).
    expect((await agent.metrics.storedPoints.get()).values[0]?.value).toBe(3);
    const outbox = agent.store.outbox;
    const bodies = outbox.seqsAfter(0, 10).map((seq) => outbox.get(seq)?.body);
    expect(
      bodies.flatMap((b) => b?.series.map((s) => [s.variable, s.unit, s.points.map((p) => p[1])])),
    ).toEqual([["level", "bar", [2.5, 3.5, 4.5]]]);
  });
});
