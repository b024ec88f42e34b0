import { afterAll, beforeAll, expect, it } from "vitest";
import { PymodbusPeer, pymodbusSkipReason } from "../../../scripts/sim/pymodbus-peer.ts";
import { requirePeer } from "../../../scripts/testing/require-peer.ts";
import type { AgentDevice } from "../../../shared/mqtt/agent-config.ts";
import { DevicePoller, type PolledValue } from "../../runtime/device-poller.ts";
import { LinkError, type TagResult } from "../driver.ts";
import { createDriverFactory } from "../registry.ts";
import { ModbusDriver } from "./modbus-driver.ts";
import { buildVectors, testDevice, testVariable } from "./test-vectors.ts";

const pymodbus = requirePeer("python3-pymodbus", pymodbusSkipReason);
const vectors = buildVectors();

function expectReadings(results: readonly TagResult[]): void {
  expect(results).toHaveLength(vectors.variables.length);
  const byId = new Map(results.map((r) => [r.variableId, r]));
  for (const v of vectors.variables) {
    const r = byId.get(v.id);
    const want = vectors.expected.get(v.id);
    const label = `${v.register_kind} ${v.register_address} ${v.data_type} ${v.word_order} ×${v.scale_factor ?? 1}`;
    expect(r?.quality, label).toBe("good");
    if (v.scale_factor === null) expect(r?.value, label).toBe(want);
    else expect(r?.value, label).toBeCloseTo(want ?? Number.NaN, 6);
  }
}

pymodbus.describe("Modbus TCP against pymodbus", () => {
  let peer: PymodbusPeer;
  const device = (fields: Partial<AgentDevice> = {}) =>
    testDevice({ host: "127.0.0.1", port: peer.port, slave_id: 7, variables: vectors.variables, ...fields });

  beforeAll(async () => {
    peer = await PymodbusPeer.start({
      mode: "tcp",
      where: 0,
      registers: vectors.registers,
      slaveIds: [1, 7],
    });
  });
  afterAll(async () => {
    await peer?.stop();
  });

  it("reads every type in every word order from holding, input, coil and discrete tables", async () => {
    const d = device();
    const driver = new ModbusDriver(d, { timeoutMs: 2000 });
    await driver.connect();
    try {
      expectReadings(await driver.read(d.variables));
      // A second poll reuses the plan and reads the same.
      expectReadings(await driver.read(d.variables));
    } finally {
      await driver.close();
    }
    expect(driver.connected).toBe(false);
  });

  it("delivers the same values through a DevicePoller", async () => {
    const d = device();
    const batches: PolledValue[][] = [];
    const poller = new DevicePoller(d, createDriverFactory({ pkiDir: "pki" }), {
      timeoutMs: 2000,
      minBackoffMs: 100,
      maxBackoffMs: 1000,
      now: Date.now,
      onValues: (_, values) => batches.push(values),
      onLog: () => {},
    });
    poller.start();
    try {
      await expect.poll(() => batches.length, { timeout: 10_000 }).toBeGreaterThan(0);
    } finally {
      await poller.stop();
    }
    expectReadings((batches[0] ?? []).map((p) => p.result));
    expect(poller.status).toMatchObject({ state: "ok", last_error: null });
  });

  it("reports an illegal data address as quality on that tag only, and keeps polling", async () => {
    const good = testVariable({ register_address: 9997, data_type: "uint16" });
    const tail = testVariable({ register_address: 9998, data_type: "uint16" });
    // 9999–10000: the table ends at 9999, so pymodbus answers exception 2 for the one block the
    // three adjacent tags make.
    const bad = testVariable({ register_address: 9999, data_type: "float32" });
    const d = device({ variables: [good, tail, bad] });
    const driver = new ModbusDriver(d, { timeoutMs: 2000 });
    await driver.connect();
    try {
      for (let poll = 0; poll < 2; poll++) {
        const byId = new Map((await driver.read(d.variables)).map((r) => [r.variableId, r]));
        expect(byId.get(bad.id)).toEqual({
          variableId: bad.id,
          value: null,
          quality: "device_exception",
          detail: "exception 2 (illegal data address)",
        });
        expect(byId.get(good.id)).toMatchObject({ quality: "good", value: 0 });
        expect(byId.get(tail.id)).toMatchObject({ quality: "good", value: 0 });
      }
      expect(driver.connected).toBe(true);
    } finally {
      await driver.close();
    }
  });

  it("times out on a unit id the peer does not serve, as a link error", async () => {
    const d = device({ slave_id: 9, variables: [testVariable({ register_address: 0 })] });
    const driver = new ModbusDriver(d, { timeoutMs: 300 });
    await driver.connect();
    try {
      const started = performance.now();
      await expect(driver.read(d.variables)).rejects.toThrow(LinkError);
      expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    } finally {
      await driver.close();
    }
  });
});
