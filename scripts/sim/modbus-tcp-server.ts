import type { AddressInfo } from "node:net";
import { createServer, type Server, type Socket } from "node:net";

/**
 * A minimal Modbus TCP server (FC 1–4 reads, FC 6/16 writes) over an in-memory register map.
 * It answers every request at once, unlike modbus-serial's ServerTCP which defers each with a
 * timer, so the agent's polling can be measured against it. Modbus APP v1.1b3 and Modbus
 * Messaging on TCP/IP v1.0b (MBAP header: transaction, protocol 0, length, unit).
 */
export class ModbusTcpServer {
  readonly holding = new Uint16Array(65536);
  readonly input = new Uint16Array(65536);
  readonly coils = new Uint8Array(65536);
  readonly discrete = new Uint8Array(65536);
  /** Requests answered, over all connections. */
  requests = 0;
  /** Connections accepted so far. */
  connections = 0;
  /**
   * The most requests one connection ever had waiting for their reply at once: a client that
   * never pipelines keeps this at 1. Requests that arrive in one read were all sent before any
   * of their replies, so they count together; `responseDelayMs` widens the window further.
   */
  maxInFlight = 0;
  /** Delay before each reply (replies keep their order), to model a slow device. */
  responseDelayMs = 0;
  #server: Server | undefined;
  readonly #sockets = new Set<Socket>();

  get port(): number {
    return (this.#server?.address() as AddressInfo | null)?.port ?? 0;
  }

  listen(port: number, host = "127.0.0.1"): Promise<void> {
    const server = createServer((socket) => this.#serve(socket));
    this.#server = server;
    return new Promise((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, host, () => resolve());
    });
  }

  close(): Promise<void> {
    for (const s of this.#sockets) s.destroy();
    const server = this.#server;
    this.#server = undefined;
    return new Promise((resolve) => (server ? server.close(() => resolve()) : resolve()));
  }

  #serve(socket: Socket): void {
    this.#sockets.add(socket);
    this.connections += 1;
    socket.setNoDelay(true);
    let pending = Buffer.alloc(0);
    let inFlight = 0;
    socket.on("data", (chunk) => {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      let answered = 0;
      while (pending.length >= 7) {
        const length = pending.readUInt16BE(4);
        if (pending.length < 6 + length) break;
        const frame = pending.subarray(0, 6 + length);
        pending = pending.subarray(6 + length);
        inFlight += 1;
        this.maxInFlight = Math.max(this.maxInFlight, inFlight);
        if (this.responseDelayMs <= 0) {
          answered += 1;
          socket.write(this.#answer(frame));
          continue;
        }
        // Equal delays fire in the order they were set, so replies keep the request order.
        setTimeout(() => {
          inFlight -= 1;
          if (!socket.destroyed) socket.write(this.#answer(frame));
        }, this.responseDelayMs);
      }
      inFlight -= answered;
    });
    socket.on("error", () => socket.destroy());
    socket.on("close", () => this.#sockets.delete(socket));
  }

  #answer(frame: Buffer): Buffer {
    this.requests += 1;
    const transaction = frame.readUInt16BE(0);
    const unit = frame[6] ?? 0;
    const fc = frame[7] ?? 0;
    const pdu = frame.subarray(8);
    const reply = (body: Buffer) => {
      const out = Buffer.alloc(8 + body.length);
      out.writeUInt16BE(transaction, 0);
      out.writeUInt16BE(0, 2);
      out.writeUInt16BE(2 + body.length, 4);
      out[6] = unit;
      out[7] = fc;
      body.copy(out, 8);
      return out;
    };
    const exception = (code: number) => {
      const out = reply(Buffer.from([code]));
      out[7] = fc | 0x80;
      return out;
    };
    const start = pdu.readUInt16BE(0);
    const count = pdu.readUInt16BE(2);
    switch (fc) {
      case 3:
      case 4: {
        if (count < 1 || count > 125) return exception(3);
        if (start + count > 65536) return exception(2);
        const table = fc === 3 ? this.holding : this.input;
        const body = Buffer.alloc(1 + count * 2);
        body[0] = count * 2;
        for (let i = 0; i < count; i++) body.writeUInt16BE(table[start + i] ?? 0, 1 + i * 2);
        return reply(body);
      }
      case 1:
      case 2: {
        if (count < 1 || count > 2000) return exception(3);
        if (start + count > 65536) return exception(2);
        const table = fc === 1 ? this.coils : this.discrete;
        const bytes = Math.ceil(count / 8);
        const body = Buffer.alloc(1 + bytes);
        body[0] = bytes;
        for (let i = 0; i < count; i++) {
          if (table[start + i]) body[1 + (i >> 3)] = (body[1 + (i >> 3)] ?? 0) | (1 << (i & 7));
        }
        return reply(body);
      }
      case 6:
        this.holding[start] = count;
        return reply(pdu.subarray(0, 4));
      case 16: {
        for (let i = 0; i < count; i++) this.holding[start + i] = pdu.readUInt16BE(5 + i * 2);
        return reply(pdu.subarray(0, 4));
      }
      default:
        return exception(1);
    }
  }
}
