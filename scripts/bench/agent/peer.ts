import { fork } from "node:child_process";
import { randomUUID } from "node:crypto";
import { connect, type Socket } from "node:net";
import { ModbusDriver } from "../../../agent/drivers/modbus/modbus-driver.ts";
import type { AgentDevice, AgentVariable } from "../../../shared/mqtt/agent-config.ts";
import { PymodbusPeer, pymodbusSkipReason } from "../../sim/pymodbus-peer.ts";
import { ask } from "../ipc.ts";

/*
 * The `peer` phase of `npm run bench -- agent`: how many registers per second a Modbus TCP server
 * gives out with 125-register FC 3 reads, one request in flight per connection. Measured twice:
 * with a raw client (a few µs per request, so the server is what limits), on one and on four
 * connections; and with the agent's own ModbusDriver on one connection (decoding every register
 * as a tag), which is what one polled device can get.
 */

const SECONDS = 5;
const fmt = (v: number) => v.toLocaleString("en-US", { maximumFractionDigits: 0 });

/** FC 3 for 125 registers from 0, again and again on one socket, until `until`. Returns replies. */
function rawLoop(socket: Socket, until: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = Buffer.from([0, 0, 0, 0, 0, 6, 1, 3, 0, 0, 0, 125]);
    let replies = 0;
    let pending: Buffer = Buffer.alloc(0);
    const send = () => {
      request.writeUInt16BE(replies & 0xffff, 0);
      socket.write(request);
    };
    socket.on("data", (chunk: Buffer) => {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      while (pending.length >= 6 && pending.length >= 6 + pending.readUInt16BE(4)) {
        pending = pending.subarray(6 + pending.readUInt16BE(4));
        replies += 1;
        if (performance.now() >= until) {
          socket.destroy();
          resolve(replies);
          return;
        }
        send();
      }
    });
    socket.on("error", reject);
    send();
  });
}

async function rawRegistersPerS(port: number, connections: number): Promise<number> {
  const sockets = await Promise.all(
    Array.from(
      { length: connections },
      () =>
        new Promise<Socket>((resolve, reject) => {
          const s = connect(port, "127.0.0.1", () => resolve(s));
          s.setNoDelay(true);
          s.once("error", reject);
        }),
    ),
  );
  const started = performance.now();
  const replies = await Promise.all(sockets.map((s) => rawLoop(s, started + SECONDS * 1000)));
  const seconds = (performance.now() - started) / 1000;
  return (replies.reduce((a, b) => a + b, 0) * 125) / seconds;
}

async function driverRegistersPerS(port: number): Promise<number> {
  const variables = Array.from(
    { length: 1250 },
    (_, i): AgentVariable => ({
      id: randomUUID(),
      alias: `r${i}`,
      data_type: "uint16",
      register_address: i,
      register_kind: "holding",
      word_order: "ABCD",
      scale_factor: null,
      unit: null,
      address: null,
      poll_interval_ms: 1000,
      deadband: 0,
    }),
  );
  const device: AgentDevice = {
    id: randomUUID(),
    asset_id: randomUUID(),
    name: "peer",
    protocol: "modbus_tcp",
    host: "127.0.0.1",
    port,
    slave_id: 1,
    variables,
  };
  const driver = new ModbusDriver(device, { timeoutMs: 2000 });
  await driver.connect();
  try {
    let reads = 0;
    const started = performance.now();
    while (performance.now() - started < SECONDS * 1000) {
      await driver.read(variables);
      reads += 1;
    }
    return (reads * variables.length) / ((performance.now() - started) / 1000);
  } finally {
    await driver.close();
  }
}

async function measure(name: string, port: number, say: (line: string) => void): Promise<void> {
  const one = await rawRegistersPerS(port, 1);
  const four = await rawRegistersPerS(port, 4);
  const driver = await driverRegistersPerS(port);
  say(
    `${name}: raw client ${fmt(one)} registers/s on 1 connection, ${fmt(four)} on 4; ` +
      `ModbusDriver ${fmt(driver)} registers/s on 1 connection`,
  );
}

export async function peerPhase(simFile: string, say: (line: string) => void): Promise<void> {
  say(`== peer: 125-register FC 3 reads, one in flight per connection, ${SECONDS} s each`);
  const skip = pymodbusSkipReason();
  if (skip) say(`pymodbus: skipped (${skip})`);
  else {
    const registers = { holding: Object.fromEntries(Array.from({ length: 1250 }, (_, i) => [i, i])) };
    const peer = await PymodbusPeer.start({ mode: "tcp", where: 0, registers });
    try {
      await measure("pymodbus 3.0 (Debian)", peer.port, say);
    } finally {
      await peer.stop();
    }
  }
  const sim = fork(simFile, [], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
  try {
    const { ports } = await ask<{ ports: number[] }>(sim, {
      type: "start",
      devices: 1,
      tags: 625,
      tickMs: 1000,
    });
    await measure("our simulator", ports[0] ?? 0, say);
  } finally {
    await ask(sim, { type: "stop" }).catch(() => undefined);
    sim.disconnect();
  }
}
