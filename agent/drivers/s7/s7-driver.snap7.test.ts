import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SilentPeer } from "../../../scripts/sim/black-hole.ts";
import type { AgentDevice, AgentVariable } from "../../../shared/mqtt/agent-config.ts";
import { agentVariable } from "../../testing/agent-variable.ts";
import { Snap7Peer } from "../../testing/snap7-server.ts";
import { LinkError, type TagResult } from "../driver.ts";
import { S7Driver } from "./s7-driver.ts";

const device = (port: number, variables: AgentVariable[]): AgentDevice => ({
  id: randomUUID(),
  asset_id: randomUUID(),
  name: "Separator CPU",
  protocol: "s7",
  host: "127.0.0.1",
  port,
  slave_id: null,
  settings: { rack: 0, slot: 1 },
  variables,
});

/** Issue 9 §3: nodes7 against snap7's server (a real S7 protocol stack, not ours). */
describe("S7 driver against the snap7 server", () => {
  const plc = new Snap7Peer();
  const vars = [
    agentVariable("pressure", "DB1,REAL0", "float32"),
    agentVariable("level_raw", "DB1,INT4", "int16"),
    agentVariable("total", "DB1,DINT6", "int32"),
    agentVariable("pump_on", "DB1,X12.0", "bool"),
    agentVariable("valve_open", "DB1,X12.1", "bool"),
    agentVariable("mode", "DB1,BYTE14", "uint16"),
    agentVariable("counter", "MW20", "uint16"),
    agentVariable("alarm_bit", "M10.0", "bool"),
  ];
  const write = (pressure: number, level: number, total: number) => {
    plc.db1.writeFloatBE(pressure, 0);
    plc.db1.writeInt16BE(level, 4);
    plc.db1.writeInt32BE(total, 6);
    plc.db1[12] = 0b01;
    plc.db1[14] = 200;
    plc.markers.writeUInt16BE(4321, 20);
    plc.markers[10] = 1;
    plc.publish();
  };

  beforeAll(async () => {
    write(12.5, -42, -100_000);
    await plc.start();
  });
  afterAll(() => plc.stop());

  it("reads every type in one multi-variable read, and sees values change", async () => {
    const driver = new S7Driver(device(plc.port, vars), { timeoutMs: 2000 });
    await driver.connect();
    try {
      const byAlias = async () => {
        const results = await driver.read(vars);
        const out: Record<string, TagResult> = {};
        results.forEach((r, i) => {
          out[vars[i]?.alias ?? ""] = r;
        });
        return out;
      };
      const first = await byAlias();
      expect(Object.values(first).every((r) => r.quality === "good")).toBe(true);
      expect(Object.fromEntries(Object.entries(first).map(([k, r]) => [k, r.value]))).toEqual({
        pressure: 12.5,
        level_raw: -42,
        total: -100_000,
        pump_on: 1,
        valve_open: 0,
        mode: 200,
        counter: 4321,
        alarm_bit: 1,
      });
      write(1480.25, 7, 123_456);
      const second = await byAlias();
      expect(second.pressure?.value).toBe(1480.25);
      expect(second.level_raw?.value).toBe(7);
      expect(second.total?.value).toBe(123_456);
    } finally {
      await driver.close();
    }
  });

  it("a data block the PLC does not have is that tag's device_exception, not a failure of the read", async () => {
    const bad = agentVariable("missing", "DB7,INT0", "int16");
    const good = agentVariable("pressure", "DB1,REAL0", "float32");
    const driver = new S7Driver(device(plc.port, [good, bad]), { timeoutMs: 2000 });
    await driver.connect();
    try {
      const [g, b] = await driver.read([good, bad]);
      expect(g?.quality).toBe("good");
      expect(b?.quality).toBe("device_exception");
      expect(b?.detail).toContain("DB7,INT0");
    } finally {
      await driver.close();
    }
  });

  it("a PLC that stops answering is a LinkError within the timeout, and a restarted one reconnects", async () => {
    const other = new Snap7Peer();
    other.db1.writeFloatBE(3.5, 0);
    other.publish();
    await other.start();
    const v = agentVariable("pressure", "DB1,REAL0", "float32");
    const driver = new S7Driver(device(other.port, [v]), { timeoutMs: 500 });
    await driver.connect();
    expect((await driver.read([v]))[0]?.value).toBe(3.5);
    other.stop();
    const started = performance.now();
    await expect(driver.read([v])).rejects.toBeInstanceOf(LinkError);
    expect(performance.now() - started).toBeLessThan(2000);
    await driver.close();
    await other.start(other.port);
    await driver.connect();
    expect((await driver.read([v]))[0]?.value).toBe(3.5);
    await driver.close();
    other.stop();
  });

  it("a dead device (accepts TCP, never answers) fails its connect within the timeout", async () => {
    const dead = new SilentPeer();
    await dead.listen();
    try {
      const driver = new S7Driver(device(dead.port, vars), { timeoutMs: 300 });
      const started = performance.now();
      await expect(driver.connect()).rejects.toBeInstanceOf(LinkError);
      expect(performance.now() - started).toBeLessThan(1500);
      await driver.close();
    } finally {
      await dead.close();
    }
  });
});
