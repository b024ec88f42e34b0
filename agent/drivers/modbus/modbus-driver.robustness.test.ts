import { connect } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { SilentPeer, SynDropPeer } from "../../../scripts/sim/black-hole.ts";
import { ModbusTcpServer } from "../../../scripts/sim/modbus-tcp-server.ts";
import { requirePeer } from "../../../scripts/testing/require-peer.ts";
import type { DataType, RegisterKind } from "../../../shared/field/data-types.ts";
import type { AgentDevice } from "../../../shared/mqtt/agent-config.ts";
import { LinkError } from "../driver.ts";
import { ModbusDriver } from "./modbus-driver.ts";
import { testDevice, testVariable } from "./test-vectors.ts";

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function fastServer(): Promise<ModbusTcpServer> {
  const server = new ModbusTcpServer();
  await server.listen(0);
  cleanup.push(() => server.close());
  return server;
}

function driverFor(device: AgentDevice, timeoutMs: number): ModbusDriver {
  const driver = new ModbusDriver(device, { timeoutMs });
  cleanup.push(() => driver.close());
  return driver;
}

const adjacent = (n: number, type: DataType, kind: RegisterKind = "holding", from = 0) => {
  const width = type === "float32" ? 2 : type === "float64" ? 4 : 1;
  return Array.from({ length: n }, (_, i) =>
    testVariable({ register_kind: kind, register_address: from + i * width, data_type: type }),
  );
};

describe("Modbus TCP link failures", () => {
  it("fails a request to a peer that accepts but never answers with a LinkError after the timeout", async () => {
    const peer = new SilentPeer();
    await peer.listen();
    cleanup.push(() => peer.close());
    const d = testDevice({ port: peer.port, variables: [testVariable({ register_address: 0 })] });
    const driver = driverFor(d, 150);
    await driver.connect();
    const started = performance.now();
    const err = await driver.read(d.variables).catch((e: unknown) => e);
    const elapsed = performance.now() - started;
    expect(err).toBeInstanceOf(LinkError);
    expect(String(err)).toContain("no reply within 150 ms");
    expect(elapsed).toBeGreaterThanOrEqual(145);
    expect(elapsed).toBeLessThan(1000);
    expect(peer.received).toBe(12); // one FC 3 request: 7-byte MBAP header + 5-byte PDU
  });

  requirePeer("python3", () => SynDropPeer.missing()).it(
    "gives up connecting after the timeout when the host drops SYNs",
    async () => {
      const peer = await SynDropPeer.start();
      cleanup.push(() => peer.stop());
      const d = testDevice({ port: peer.port, variables: [] });
      const driver = driverFor(d, 200);
      const started = performance.now();
      await expect(driver.connect()).rejects.toThrow(/connect failed: no connection within 200 ms/);
      expect(performance.now() - started).toBeLessThan(1000);
      expect(driver.connected).toBe(false);
    },
  );

  it("closes at once even when the peer never completes the TCP close", async () => {
    const peer = new SilentPeer({ holdHalfOpen: true });
    await peer.listen();
    cleanup.push(() => peer.close());
    const driver = driverFor(testDevice({ port: peer.port, variables: [] }), 5000);
    await driver.connect();
    await expect.poll(() => peer.openConnections).toBe(1);
    const started = performance.now();
    await driver.close();
    expect(performance.now() - started).toBeLessThan(100);
    expect(driver.connected).toBe(false);
    await expect.poll(() => peer.ended).toBe(1);
  });

  it("fails the request in flight as soon as the device closes the connection", async () => {
    const server = await fastServer();
    server.responseDelayMs = 2000;
    const d = testDevice({ port: server.port, variables: [testVariable({ register_address: 0 })] });
    const driver = driverFor(d, 5000);
    await driver.connect();
    const started = performance.now();
    const reading = driver.read(d.variables);
    setTimeout(() => void server.close(), 50);
    await expect(reading).rejects.toThrow(/closed by the device/);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(driver.connected).toBe(false);
  });

  it("reports a refused connection as a LinkError", async () => {
    const server = await fastServer();
    const port = server.port;
    await server.close();
    const driver = driverFor(testDevice({ port, variables: [] }), 1000);
    await expect(driver.connect()).rejects.toThrow(/connect failed: .*ECONNREFUSED/);
  });
});

describe("Modbus requests on the wire", () => {
  it("keeps one request in flight per connection and refuses a concurrent read", async () => {
    const server = await fastServer();
    server.responseDelayMs = 5;
    // Ten far-apart tags: ten requests per read.
    const variables = Array.from({ length: 10 }, (_, i) => testVariable({ register_address: i * 1000 }));
    const d = testDevice({ port: server.port, variables });
    const driver = driverFor(d, 1000);
    await driver.connect();
    const first = driver.read(variables);
    await expect(driver.read(variables)).rejects.toThrow(/already in progress/);
    await first;
    await driver.read(variables);
    expect(server.requests).toBe(20);
    expect(server.maxInFlight).toBe(1);
  });

  it("would see a client that pipelines: the simulator counts requests sent together", async () => {
    const server = await fastServer();
    const request = (id: number) => Buffer.from([0, id, 0, 0, 0, 6, 1, 3, 0, 0, 0, 1]);
    const socket = connect(server.port, "127.0.0.1");
    cleanup.push(() => {
      socket.destroy();
    });
    let received = 0;
    socket.on("data", (chunk) => {
      received += chunk.length;
    });
    socket.write(Buffer.concat([request(1), request(2)]));
    await expect.poll(() => received).toBe(2 * 11);
    expect(server.maxInFlight).toBe(2);
  });

  it("coalesces adjacent tags into the fewest requests a value never straddles", async () => {
    const server = await fastServer();
    const cases: { variables: ReturnType<typeof adjacent>; requests: number }[] = [
      // 1,000 uint16 = 1,000 registers: ceil(1000 / 125).
      { variables: adjacent(1000, "uint16"), requests: 8 },
      // 500 float32: 62 fit in 125 registers (a value is never split over two reads): ceil(500 / 62).
      { variables: adjacent(500, "float32", "input"), requests: 9 },
      // 310 float64: 31 per request.
      { variables: adjacent(310, "float64", "holding", 20_000), requests: 10 },
      // 5,000 coils: 2,000 bits per request.
      { variables: adjacent(5000, "bool", "coil"), requests: 3 },
    ];
    for (const c of cases) {
      const d = testDevice({ port: server.port, variables: c.variables });
      const driver = driverFor(d, 1000);
      await driver.connect();
      for (let poll = 0; poll < 2; poll++) {
        const before = server.requests;
        const results = await driver.read(c.variables);
        expect(results.every((r) => r.quality === "good")).toBe(true);
        expect(server.requests - before).toBe(c.requests);
      }
      await driver.close();
    }
  });

  it("reads a second connection's values independently of the first", async () => {
    const server = await fastServer();
    server.holding[7] = 1234;
    server.input[7] = 4321;
    const h = testVariable({ register_address: 7 });
    const i = testVariable({ register_address: 7, register_kind: "input" });
    const d = testDevice({ port: server.port, variables: [h, i] });
    const a = driverFor(d, 1000);
    const b = driverFor(d, 1000);
    await Promise.all([a.connect(), b.connect()]);
    const [ra, rb] = await Promise.all([a.read([h, i]), b.read([h, i])]);
    for (const r of [ra, rb]) expect(r.map((x) => x.value)).toEqual([1234, 4321]);
    expect(server.connections).toBe(2);
  });
});
