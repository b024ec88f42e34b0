import { afterEach, describe, expect, it } from "vitest";
import { PtyPair, PymodbusPeer, rtuSkipReason } from "../../../scripts/sim/pymodbus-peer.ts";
import { requirePeer } from "../../../scripts/testing/require-peer.ts";
import { DevicePoller, type PolledValue } from "../../runtime/device-poller.ts";
import { LinkError } from "../driver.ts";
import { createDriverFactory } from "../registry.ts";
import { ModbusDriver } from "./modbus-driver.ts";
import { DEFAULT_BAUD_RATE, silentIntervalMs, transportOf } from "./protocol.ts";
import { ScriptedRtuSlave } from "./rtu-line.ts";
import { buildVectors, testDevice, testVariable } from "./test-vectors.ts";

const pymodbusAndSocat = requirePeer("python3-pymodbus and socat", rtuSkipReason);

describe("RTU transport settings", () => {
  it("takes the serial path from host and the baud rate from port, 19200 by default", () => {
    const d = testDevice({ protocol: "modbus_rtu", host: "/dev/ttyS3", port: 9600, variables: [] });
    expect(transportOf(d)).toEqual({ kind: "rtu", path: "/dev/ttyS3", baudRate: 9600 });
    expect(transportOf({ ...d, port: null })).toMatchObject({ baudRate: 19_200 });
    expect(DEFAULT_BAUD_RATE).toBe(19_200);
  });

  it("keeps 3.5 character times (11 bits each) between frames, 1.75 ms above 19200 baud", () => {
    expect(silentIntervalMs(9600)).toBeCloseTo(4.0104, 3);
    expect(silentIntervalMs(19_200)).toBeCloseTo(2.0052, 3);
    expect(silentIntervalMs(38_400)).toBe(1.75);
    expect(silentIntervalMs(115_200)).toBe(1.75);
  });
});

pymodbusAndSocat.describe("Modbus RTU over a socat pty pair", () => {
  const cleanup: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });

  async function line(): Promise<PtyPair> {
    const pair = await PtyPair.start();
    cleanup.push(() => pair.stop());
    return pair;
  }

  it("reads every type and word order from pymodbus in RTU mode", async () => {
    const vectors = buildVectors();
    const pair = await line();
    const peer = await PymodbusPeer.start({
      mode: "rtu",
      where: pair.a,
      registers: vectors.registers,
      slaveIds: [5],
    });
    cleanup.push(() => peer.stop());
    const d = testDevice({
      protocol: "modbus_rtu",
      host: pair.b,
      port: 19_200,
      slave_id: 5,
      variables: vectors.variables,
    });
    const driver = new ModbusDriver(d, { timeoutMs: 2000 });
    cleanup.push(() => driver.close());
    await driver.connect();
    for (let poll = 0; poll < 2; poll++) {
      const results = await driver.read(d.variables);
      expect(results).toHaveLength(vectors.variables.length);
      const byId = new Map(results.map((r) => [r.variableId, r]));
      for (const v of vectors.variables) {
        const label = `${v.register_kind} ${v.register_address} ${v.data_type} ${v.word_order}`;
        expect(byId.get(v.id)?.quality, label).toBe("good");
        expect(byId.get(v.id)?.value, label).toBeCloseTo(vectors.expected.get(v.id) ?? Number.NaN, 6);
      }
    }

    // A unit that is not on the line never answers: a link error after the timeout, and the
    // driver reconnects cleanly.
    const absent = testDevice({ ...d, slave_id: 6, variables: [testVariable({ register_address: 0 })] });
    const silent = new ModbusDriver(absent, { timeoutMs: 200 });
    await driver.close();
    await silent.connect();
    await expect(silent.read(absent.variables)).rejects.toThrow(LinkError);
    await silent.close();
    await driver.connect();
    expect((await driver.read(d.variables)).every((r) => r.quality === "good")).toBe(true);
  });

  it("leaves the RTU silent interval between a reply and the next request", async () => {
    const pair = await line();
    const slave = new ScriptedRtuSlave(pair.a, {
      delayMs: () => 0,
      answer: (_, count) => new Array(count).fill(1),
    });
    cleanup.push(() => slave.close());
    // Far-apart addresses: one request each.
    const variables = [0, 200, 400, 600, 800, 1000].map((a) => testVariable({ register_address: a }));
    const d = testDevice({ protocol: "modbus_rtu", host: pair.b, port: 19_200, slave_id: 1, variables });
    const driver = new ModbusDriver(d, { timeoutMs: 1000 });
    cleanup.push(() => driver.close());
    await driver.connect();
    await driver.read(variables);
    await driver.read(variables);
    expect(slave.requests).toHaveLength(12);
    const gaps = slave.requests
      .slice(1)
      .map((r, i) => r.at - (slave.repliedAt[i] ?? Number.POSITIVE_INFINITY));
    // t3.5 at 19200 baud is 2.005 ms; allow for timer rounding on the reply side.
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(1.9);
  });

  it("never takes a late reply to a timed-out request for the answer to a later one", async () => {
    const pair = await line();
    const STALE = 0xdead;
    const FRESH = 0x0042;
    // The first request is answered at 450 ms, after the 300 ms timeout, with a value that must
    // never be reported; every later one after 150 ms. A driver that kept the line after the
    // timeout would have its next request outstanding when the stale reply comes in.
    const slave = new ScriptedRtuSlave(pair.a, {
      delayMs: (i) => (i === 0 ? 450 : 150),
      answer: (i, count) => new Array(count).fill(i === 0 ? STALE : FRESH),
    });
    cleanup.push(() => slave.close());
    const v = testVariable({ register_address: 10, poll_interval_ms: 20 });
    const d = testDevice({ protocol: "modbus_rtu", host: pair.b, port: 19_200, slave_id: 1, variables: [v] });
    const seen: PolledValue[] = [];
    const poller = new DevicePoller(d, createDriverFactory({ pkiDir: "pki" }), {
      timeoutMs: 300,
      minBackoffMs: 500,
      maxBackoffMs: 1000,
      now: Date.now,
      onValues: (_, values) => seen.push(...values),
      onLog: () => {},
    });
    cleanup.push(() => poller.stop());
    poller.start();
    await expect.poll(() => seen.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(5);
    await poller.stop();
    expect(seen.map((s) => s.result.value)).not.toContain(STALE);
    expect(seen.every((s) => s.result.quality === "good" && s.result.value === FRESH)).toBe(true);
    expect(poller.status.reconnects).toBeGreaterThanOrEqual(1);
  });
});
