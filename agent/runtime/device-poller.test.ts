import { afterEach, describe, expect, it, vi } from "vitest";
import { SilentPeer } from "../../scripts/sim/black-hole.ts";
import { ModbusTcpServer } from "../../scripts/sim/modbus-tcp-server.ts";
import { PymodbusPeer, pymodbusSkipReason } from "../../scripts/sim/pymodbus-peer.ts";
import { requirePeer } from "../../scripts/testing/require-peer.ts";
import type { AgentDevice } from "../../shared/mqtt/agent-config.ts";
import { type Driver, type DriverFactory, LinkError } from "../drivers/driver.ts";
import { testDevice, testVariable } from "../drivers/modbus/test-vectors.ts";
import { createDriverFactory } from "../drivers/registry.ts";
import { DevicePoller, type PolledValue, type PollerOptions } from "./device-poller.ts";

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const c of cleanup.splice(0).reverse()) await c();
});

function poller(
  device: AgentDevice,
  options: Partial<PollerOptions> & Pick<PollerOptions, "timeoutMs">,
  factory: DriverFactory = createDriverFactory({ pkiDir: "pki" }),
): { poller: DevicePoller; polls: { at: number; values: PolledValue[] }[]; logs: string[] } {
  const polls: { at: number; values: PolledValue[] }[] = [];
  const logs: string[] = [];
  const p = new DevicePoller(device, factory, {
    minBackoffMs: 50,
    maxBackoffMs: 400,
    now: Date.now,
    onValues: (_, values) => polls.push({ at: performance.now(), values }),
    onLog: (level, message) => logs.push(`${level}: ${message}`),
    ...options,
  });
  cleanup.push(() => p.stop());
  return { poller: p, polls, logs };
}

const diffs = (xs: number[]) => xs.slice(1).map((x, i) => x - (xs[i] ?? 0));

/** A driver whose connect() and read() follow a script of outcomes, for exact backoff timing. */
function scriptedFactory(script: ("ok" | "fail")[], attempts: number[]): DriverFactory {
  return () => {
    let connected = false;
    const next = () => script.shift() ?? "ok";
    const driver: Driver = {
      get connected() {
        return connected;
      },
      async connect() {
        attempts.push(Date.now());
        if (next() === "fail") throw new LinkError("refused");
        connected = true;
      },
      async read() {
        if (next() === "fail") {
          connected = false;
          throw new LinkError("timeout");
        }
        return [];
      },
      async close() {
        connected = false;
      },
    };
    return driver;
  };
}

describe("DevicePoller reconnect backoff", () => {
  it("doubles the delay after each failure up to the cap, and starts over after a good poll", async () => {
    vi.useFakeTimers();
    const attempts: number[] = [];
    // connect fails 6 times, then connect + read succeed, then the read fails, then all is well.
    const script: ("ok" | "fail")[] = [
      "fail",
      "fail",
      "fail",
      "fail",
      "fail",
      "fail",
      "ok",
      "ok",
      "fail",
      "fail",
    ];
    const d = testDevice({ variables: [testVariable({ register_address: 0, poll_interval_ms: 10_000 })] });
    const { poller: p } = poller(
      d,
      { timeoutMs: 1000, minBackoffMs: 100, maxBackoffMs: 800 },
      scriptedFactory(script, attempts),
    );
    p.start();
    await vi.advanceTimersByTimeAsync(30_000);
    // Six failed connects: 100, 200, 400, 800, 800, 800 ms apart; then a good connect and poll.
    expect(diffs(attempts.slice(0, 7))).toEqual([100, 200, 400, 800, 800, 800]);
    // The next poll (10 s later) fails its read: reconnect after the minimum again; that connect
    // fails too, so the one after waits twice as long.
    const afterGood = attempts.slice(6);
    expect(diffs(afterGood)).toEqual([10_000 + 100, 200]);
    expect(p.status).toMatchObject({ state: "ok", reconnects: 1 });
  });

  it("backs off between timeouts against a peer that never answers, growing then capped", async () => {
    const peer = new SilentPeer();
    await peer.listen();
    cleanup.push(() => peer.close());
    const d = testDevice({
      port: peer.port,
      variables: [testVariable({ register_address: 0, poll_interval_ms: 100 })],
    });
    const timeoutMs = 60;
    const { poller: p, logs } = poller(d, { timeoutMs, minBackoffMs: 40, maxBackoffMs: 160 });
    p.start();
    await expect.poll(() => peer.connectedAt.length, { timeout: 5000 }).toBeGreaterThanOrEqual(6);
    await p.stop();
    // Each cycle: connect, one request that times out, close, back off.
    const waits = diffs(peer.connectedAt)
      .slice(0, 5)
      .map((gap) => gap - timeoutMs);
    const expected = [40, 80, 160, 160, 160];
    // Timers never fire early (but for ms rounding), so the lower bounds show the growth; a
    // loaded machine may fire them late, but never by a doubling past the 160 ms cap.
    waits.forEach((w, i) => {
      expect(w).toBeGreaterThanOrEqual((expected[i] ?? 0) - 3);
      expect(w).toBeLessThan((expected[i] ?? 0) + 150);
    });
    expect(p.status.state).toBe("failing");
    expect(p.status.last_error).toContain("no reply within 60 ms");
    // The same failure is logged once, not once per retry.
    expect(logs.filter((l) => l.startsWith("warn")).length).toBe(1);
  });
});

describe("DevicePoller isolation", () => {
  it("keeps polling a healthy device at its rate while another device never answers", async () => {
    const dead = new SilentPeer();
    await dead.listen();
    cleanup.push(() => dead.close());
    const server = new ModbusTcpServer();
    await server.listen(0);
    cleanup.push(() => server.close());
    server.holding[3] = 77;

    const sick = poller(testDevice({ port: dead.port, variables: [testVariable({ register_address: 0 })] }), {
      timeoutMs: 1000,
      minBackoffMs: 50,
      maxBackoffMs: 100,
    });
    const healthy = poller(
      testDevice({
        port: server.port,
        variables: [testVariable({ register_address: 3, poll_interval_ms: 50 })],
      }),
      { timeoutMs: 400 },
    );
    sick.poller.start();
    healthy.poller.start();
    await new Promise((r) => setTimeout(r, 2500));
    await Promise.all([sick.poller.stop(), healthy.poller.stop()]);

    expect(sick.poller.status.state).toBe("failing");
    expect(dead.connectedAt.length).toBeGreaterThanOrEqual(2);
    expect(sick.poller.status.last_error).toContain("no reply within 1000 ms");
    // 2.5 s at 50 ms is 50 polls. Were the healthy device held up by the sick one's 1 s
    // timeouts, some gap between its polls would reach 1 s.
    expect(healthy.polls.length).toBeGreaterThanOrEqual(30);
    expect(Math.max(...diffs(healthy.polls.map((p) => p.at)))).toBeLessThan(500);
    expect(healthy.polls.every((p) => p.values[0]?.result.value === 77)).toBe(true);
  });

  it("never has two requests in flight on a connection, whatever the interval groups", async () => {
    const server = new ModbusTcpServer();
    await server.listen(0);
    cleanup.push(() => server.close());
    server.responseDelayMs = 3;
    const variables = [
      ...[0, 1000, 2000].map((a) => testVariable({ register_address: a, poll_interval_ms: 20 })),
      ...[3000, 4000].map((a) =>
        testVariable({ register_address: a, poll_interval_ms: 30, register_kind: "input" }),
      ),
    ];
    const { poller: p, polls } = poller(testDevice({ port: server.port, variables }), { timeoutMs: 500 });
    p.start();
    await expect.poll(() => polls.length, { timeout: 5000 }).toBeGreaterThanOrEqual(20);
    await p.stop();
    expect(server.requests).toBeGreaterThanOrEqual(40);
    expect(server.maxInFlight).toBe(1);
  });
});

const pymodbus = requirePeer("python3-pymodbus", pymodbusSkipReason);
pymodbus.describe("DevicePoller against pymodbus", () => {
  it("reconnects after the device restarts and reads again", async () => {
    const registers = { holding: { 12: 4242 } };
    let peer = await PymodbusPeer.start({ mode: "tcp", where: 0, registers });
    cleanup.push(() => peer.stop());
    const port = peer.port;
    const v = testVariable({ register_address: 12, poll_interval_ms: 100 });
    const { poller: p, polls } = poller(testDevice({ port, variables: [v] }), {
      timeoutMs: 300,
      minBackoffMs: 50,
      maxBackoffMs: 200,
    });
    p.start();
    await expect.poll(() => polls.length, { timeout: 5000 }).toBeGreaterThan(0);
    await peer.stop();
    await expect.poll(() => p.status.state, { timeout: 5000 }).toBe("failing");
    const before = polls.length;
    peer = await PymodbusPeer.start({ mode: "tcp", where: port, registers: { holding: { 12: 4343 } } });
    await expect.poll(() => polls.length, { timeout: 10_000 }).toBeGreaterThan(before + 1);
    expect(p.status).toMatchObject({ state: "ok", last_error: null });
    expect(p.status.reconnects).toBeGreaterThanOrEqual(1);
    expect(polls.at(-1)?.values[0]?.result).toMatchObject({ quality: "good", value: 4343 });
  });

  it("reports a Modbus exception as the tag's quality while the device stays ok", async () => {
    const peer = await PymodbusPeer.start({ mode: "tcp", where: 0, registers: { input: { 5: 9 } } });
    cleanup.push(() => peer.stop());
    const good = testVariable({ register_address: 5, register_kind: "input", poll_interval_ms: 100 });
    const bad = testVariable({ register_address: 12_000, register_kind: "input", poll_interval_ms: 100 });
    const { poller: p, polls } = poller(testDevice({ port: peer.port, variables: [good, bad] }), {
      timeoutMs: 1000,
    });
    p.start();
    await expect.poll(() => polls.length, { timeout: 5000 }).toBeGreaterThanOrEqual(3);
    await p.stop();
    for (const poll of polls) {
      const byId = new Map(poll.values.map((x) => [x.variable.id, x.result]));
      expect(byId.get(good.id)).toMatchObject({ quality: "good", value: 9 });
      expect(byId.get(bad.id)).toMatchObject({
        quality: "device_exception",
        detail: "exception 2 (illegal data address)",
      });
    }
    expect(p.status).toMatchObject({ state: "ok", reconnects: 0 });
  });
});
