import { Duplex } from "node:stream";
import { setImmediate as nextTurn, setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { PacketBoundaries, PacketSizeGuard } from "./packet-size-guard.ts";

/** One packet: type byte, Remaining Length (MQTT 3.1.1 §2.2.3, 7 bits a byte), then the body. */
function packet(typeByte: number, bodyBytes: number): Buffer {
  const length: number[] = [];
  let n = bodyBytes;
  do {
    let byte = n % 128;
    n = Math.floor(n / 128);
    if (n > 0) byte |= 0x80;
    length.push(byte);
  } while (n > 0);
  return Buffer.concat([Buffer.from([typeByte, ...length]), Buffer.alloc(bodyBytes, 0x61)]);
}
const publish = (bodyBytes: number) => packet(0x30, bodyBytes);
const pingreq = packet(0xc0, 0);

describe("PacketBoundaries", () => {
  it("lets packets up to the limit through, whatever the chunking", () => {
    const stream = Buffer.concat([publish(10), pingreq, publish(200), publish(16_000), pingreq]);
    expect(stream.length).toBeGreaterThan(16_000);
    for (const size of [1, 2, 3, 7, 64, 4096, stream.length]) {
      const b = new PacketBoundaries(16_100);
      for (let i = 0; i < stream.length; i += size) {
        expect(b.feed(stream.subarray(i, i + size)), `chunks of ${size}`).toBeNull();
      }
    }
  });

  it("reports the first packet over the limit from its fixed header, before its body", () => {
    const small = publish(10);
    const large = publish(5 * 1024 * 1024);
    const b = new PacketBoundaries(4 * 1024 * 1024);
    expect(b.feed(small)).toBeNull();
    // Only the fixed header of the large packet: 1 type byte + 4 length bytes.
    expect(b.feed(large.subarray(0, 3))).toBeNull();
    expect(b.feed(large.subarray(3, 5))).toBe(large.length);
  });

  it("counts the fixed header in the size (MQTT 5 Maximum Packet Size)", () => {
    const p = publish(100);
    expect(new PacketBoundaries(p.length).feed(p)).toBeNull();
    expect(new PacketBoundaries(p.length - 1).feed(p)).toBe(p.length);
  });

  it("refuses a Remaining Length longer than four bytes [MQTT-2.2.3]", () => {
    expect(new PacketBoundaries(1 << 30).feed(Buffer.from([0x30, 0xff, 0xff, 0xff, 0xff, 0x01]))).toBe(-1);
  });
});

/** A connection that records each write it is given (one entry per write or writev call). */
function recordingConnection(options: { highWaterMark?: number; writeDelayMs?: number } = {}) {
  const calls: string[][] = [];
  const finish = (callback: () => void) =>
    options.writeDelayMs ? setTimeout(callback, options.writeDelayMs) : callback();
  const inner = new Duplex({
    highWaterMark: options.highWaterMark ?? 16_384,
    read() {},
    write(chunk: Buffer, _encoding, callback) {
      calls.push([chunk.toString()]);
      finish(callback);
    },
    writev(chunks, callback) {
      calls.push(chunks.map((c) => (c.chunk as Buffer).toString()));
      finish(callback);
    },
  });
  return { inner, calls };
}

describe("PacketSizeGuard writes", () => {
  it("hands what is written in one turn of the event loop to the connection in one write, in order", async () => {
    const { inner, calls } = recordingConnection();
    const guard = new PacketSizeGuard(inner, 1024);
    for (const part of ["a", "bc", "d"]) guard.write(Buffer.from(part));
    expect(calls).toEqual([]);
    await nextTurn();
    expect(calls).toEqual([["abcd"]]);
    // Corked, as mqtt-packet writes a packet's chunks (they reach the guard as one writev).
    guard.cork();
    for (const part of ["e", "fg"]) guard.write(Buffer.from(part));
    guard.uncork();
    guard.write(Buffer.from("h"));
    await nextTurn();
    expect(calls).toEqual([["abcd"], ["efgh"]]);
  });

  it("holds writes back while the connection's buffer is full, and loses none", async () => {
    const { inner, calls } = recordingConnection({ highWaterMark: 4, writeDelayMs: 2 });
    const guard = new PacketSizeGuard(inner, 1024);
    const sent: string[] = [];
    let refused = 0;
    for (let turn = 0; turn < 20; turn++) {
      for (let k = 0; k < 3; k++) {
        // 6 kB each: the guard's own buffer (16 kB) fills within a few turns.
        const part = `${turn}.${k}:`.padEnd(6_000, "x");
        sent.push(part);
        if (!guard.write(Buffer.from(part))) refused++;
      }
      await nextTurn();
    }
    // The guard's own buffer filled up behind the full connection: its writer was told to wait.
    expect(refused).toBeGreaterThan(0);
    const ended = new Promise((resolve) => inner.once("finish", resolve));
    guard.end();
    await Promise.race([ended, sleep(5_000)]);
    expect(calls.flat().join("")).toEqual(sent.join(""));
  });

  it("writes what is pending before it closes the connection (a CONNACK refusing it, say)", () => {
    const { inner, calls } = recordingConnection();
    const guard = new PacketSizeGuard(inner, 1024);
    guard.write(Buffer.from("connack: not authorized"));
    guard.destroy();
    expect(calls.flat()).toEqual(["connack: not authorized"]);
    expect(inner.destroyed).toBe(true);
  });

  it("writes what is pending before it ends the connection", async () => {
    const { inner, calls } = recordingConnection();
    const guard = new PacketSizeGuard(inner, 1024);
    guard.write(Buffer.from("last words"));
    const ended = new Promise((resolve) => inner.once("finish", resolve));
    guard.end();
    await ended;
    expect(calls.flat()).toEqual(["last words"]);
  });
});
