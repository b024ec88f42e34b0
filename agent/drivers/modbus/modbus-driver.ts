import { Socket } from "node:net";
import modbusSerial from "modbus-serial";
import type { AgentDevice, AgentVariable } from "../../../shared/mqtt/agent-config.ts";
import { type Driver, LinkError, type TagResult } from "../driver.ts";
import { decodeBytes } from "./decode.ts";
import {
  exceptionDetail,
  ILLEGAL_DATA_ADDRESS,
  isExceptionError,
  isTimeout,
  silentIntervalMs,
  type Transport,
  transportOf,
} from "./protocol.ts";
import { type PlannedBlock, planRead, type ReadPlan, splitBlock } from "./read-plan.ts";

// modbus-serial is CommonJS; under NodeNext its default import is module.exports, whose
// `default` property is the client class.
const ModbusRTU = modbusSerial.default;
type ModbusRTU = InstanceType<typeof ModbusRTU>;

/** One open connection; `lost` is set once the port reports an error or closes. */
type Link = {
  client: ModbusRTU;
  transport: Transport;
  socket: Socket | undefined;
  lost: string | undefined;
  onLost: ((reason: string) => void) | undefined;
};

function messageOf(err: unknown): string {
  if (typeof err === "object" && err !== null && "message" in err && typeof err.message === "string")
    return err.message;
  return String(err);
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Resolves with `promise`, or rejects with `onTimeout()` after `ms`. */
function within<T>(promise: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(onTimeout()), ms);
    promise.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(timer);
        reject(e);
      },
    );
  });
}

/**
 * Modbus TCP and RTU through modbus-serial, with block reads (FC 1–4).
 *
 * Link policy: a timeout, a framing error or a closed port ends the connection (LinkError); the
 * poller reconnects with backoff. A fresh connection is the only way to be sure a late reply to
 * a timed-out request cannot be taken for the answer to the next one: RTU frames carry no
 * transaction id, and re-opening the serial port flushes its input (tcflush); over TCP the late
 * reply dies with the old socket.
 */
export class ModbusDriver implements Driver {
  readonly #device: AgentDevice;
  readonly #timeoutMs: number;
  #link: Link | undefined;
  #plan: ReadPlan | undefined;
  #reading = false;
  /** performance.now() when the last RTU frame ended, for the inter-frame silent interval. */
  #lastFrameAt = 0;

  constructor(device: AgentDevice, options: { timeoutMs: number }) {
    this.#device = device;
    this.#timeoutMs = options.timeoutMs;
  }

  get connected(): boolean {
    const link = this.#link;
    return link !== undefined && link.lost === undefined && link.client.isOpen;
  }

  async connect(): Promise<void> {
    await this.close();
    const client = new ModbusRTU();
    const transport = transportOf(this.#device);
    const link: Link = { client, transport, socket: undefined, lost: undefined, onLost: undefined };
    const lose = (reason: string) => {
      if (link.lost !== undefined) return;
      link.lost = reason;
      link.onLost?.(reason);
    };
    // A serial port error (adapter unplugged) is emitted as 'error': with no listener it would
    // throw and take the whole agent down.
    client.on("error", (err: unknown) => lose(`port error: ${messageOf(err)}`));
    client.on("close", () => lose("connection closed by the device"));
    try {
      if (transport.kind === "tcp") {
        link.socket = await this.#openSocket(transport, lose);
        await client.linkTCP(link.socket, { port: transport.port });
      } else {
        const opening = client.connectRTUBuffered(transport.path, { baudRate: transport.baudRate });
        opening.catch(() => {});
        await within(
          opening,
          this.#timeoutMs,
          () => new Error(`port did not open within ${this.#timeoutMs} ms`),
        );
      }
    } catch (err) {
      await this.#dispose(link);
      throw new LinkError(`connect failed: ${messageOf(err)}`);
    }
    client.setID(this.#device.slave_id ?? 1);
    client.setTimeout(this.#timeoutMs);
    this.#link = link;
    this.#lastFrameAt = 0;
    // Blocks split after an illegal-address exception are coalesced again on a new connection
    // (the device may have been reconfigured meanwhile).
    this.#plan = undefined;
  }

  /**
   * Opens the TCP connection itself, bounded by the request timeout: modbus-serial's connectTCP
   * has no connect timeout (a host that drops SYNs holds it for the kernel's ~2 min), and it keeps
   * the socket private, so a reset connection would only show as a request timeout.
   */
  async #openSocket(
    transport: { host: string; port: number },
    lose: (reason: string) => void,
  ): Promise<Socket> {
    const socket = new Socket();
    socket.on("error", (err) => lose(`socket error: ${err.message}`));
    socket.on("close", () => lose("connection closed by the device"));
    const connecting = new Promise<void>((resolve, reject) => {
      socket.once("connect", resolve);
      socket.once("error", reject);
    });
    socket.connect(transport.port, transport.host);
    try {
      await within(
        connecting,
        this.#timeoutMs,
        () => new Error(`no connection within ${this.#timeoutMs} ms`),
      );
    } catch (err) {
      socket.destroy();
      throw err;
    }
    socket.setNoDelay(true);
    return socket;
  }

  async read(variables: readonly AgentVariable[]): Promise<TagResult[]> {
    const link = this.#link;
    if (!link || !this.connected) throw new LinkError(link?.lost ?? "not connected");
    // Modbus allows one outstanding request per RTU line; over TCP the devices this agent meets
    // (PLCs, gateways) often serve one at a time too, so the driver never pipelines.
    if (this.#reading) throw new Error("a read is already in progress on this connection");
    this.#reading = true;
    try {
      const plan = this.#planFor(variables);
      const results: TagResult[] = [...plan.refused];
      for (let i = 0; i < plan.blocks.length; i++) {
        const block = plan.blocks[i];
        if (!block) continue;
        try {
          this.#decode(block, await this.#readBlock(link, block), results);
        } catch (err) {
          if (!isExceptionError(err)) throw this.#linkError(err);
          if (err.modbusCode === ILLEGAL_DATA_ADDRESS && block.tags.length > 1) {
            // One address the device does not have must not blank its neighbours: read this
            // block tag by tag from now on, so only the bad tag reports the exception.
            plan.blocks.splice(i, 1, ...splitBlock(block));
            i -= 1;
            continue;
          }
          const detail = exceptionDetail(err.modbusCode);
          for (const t of block.tags)
            results.push({ variableId: t.variable.id, value: null, quality: "device_exception", detail });
        }
      }
      return results;
    } finally {
      this.#reading = false;
    }
  }

  async close(): Promise<void> {
    const link = this.#link;
    this.#link = undefined;
    if (link) await this.#dispose(link);
  }

  async #dispose(link: Link): Promise<void> {
    link.lost ??= "closed";
    link.onLost = undefined;
    const { client, transport } = link;
    if (transport.kind === "tcp") {
      // destroy, not close: close() ends the socket and waits for the device's FIN, which a
      // device that vanished from the network never sends. destroy() also cancels the
      // transaction timers of anything still pending.
      client.destroy(() => {});
      link.socket?.destroy();
      return;
    }
    // modbus-serial's destroy() skips ports without destroy() (the RTU port) and leaves the
    // serial device open; close() releases it. A port that never opened calls back at once.
    await within(
      new Promise<void>((resolve) => client.close(() => resolve())),
      this.#timeoutMs,
      () => new Error("close timed out"),
    ).catch(() => {});
  }

  /** The plan for `variables`, kept while the same list comes back (lists are never mutated). */
  #planFor(variables: readonly AgentVariable[]): ReadPlan {
    const plan = this.#plan;
    if (plan?.source === variables) return plan;
    if (
      plan &&
      plan.variables.length === variables.length &&
      plan.variables.every((v, i) => v === variables[i])
    )
      return plan;
    this.#plan = planRead(variables);
    return this.#plan;
  }

  #linkError(err: unknown): LinkError {
    if (err instanceof LinkError) return err;
    if (isTimeout(err)) return new LinkError(`timeout: no reply within ${this.#timeoutMs} ms`);
    return new LinkError(messageOf(err));
  }

  /** Sends one read and returns the data bytes of its reply (registers, or packed bits). */
  async #readBlock(link: Link, block: PlannedBlock): Promise<Buffer> {
    const { client, transport } = link;
    if (link.lost !== undefined) throw new LinkError(link.lost);
    if (transport.kind === "rtu") {
      // Timers run on a millisecond clock cached per loop turn and can fire up to 1 ms early.
      const quietUntil = this.#lastFrameAt + silentIntervalMs(transport.baudRate);
      for (let wait = quietUntil - performance.now(); wait > 0; wait = quietUntil - performance.now())
        await sleep(Math.ceil(wait));
    }
    const request = (() => {
      switch (block.kind) {
        case "holding":
          return client.readHoldingRegisters(block.start, block.count); // FC 3
        case "input":
          return client.readInputRegisters(block.start, block.count); // FC 4
        case "coil":
          return client.readCoils(block.start, block.count); // FC 1
        case "discrete":
          return client.readDiscreteInputs(block.start, block.count); // FC 2
      }
    })();
    // A closed socket or port fails the request at once instead of after the full timeout.
    const lost = new Promise<never>((_, reject) => {
      link.onLost = (reason) => reject(new LinkError(reason));
    });
    try {
      return (await Promise.race([request, lost])).buffer;
    } finally {
      link.onLost = undefined;
      request.catch(() => {});
      lost.catch(() => {});
      this.#lastFrameAt = performance.now();
    }
  }

  #decode(block: PlannedBlock, bytes: Buffer, results: TagResult[]): void {
    if (block.kind === "coil" || block.kind === "discrete") {
      // FC 1/2 pack the bits LSB first, eight per byte (Modbus APP v1.1b3 §6.1, §6.2).
      for (const t of block.tags) {
        const bit = ((bytes[t.offset >> 3] ?? 0) >> (t.offset & 7)) & 1;
        results.push({ variableId: t.variable.id, value: bit, quality: "good" });
      }
      return;
    }
    for (const t of block.tags) {
      const v = t.variable;
      results.push({
        variableId: v.id,
        value: decodeBytes(bytes, t.offset * 2, v.data_type, v.word_order, v.scale_factor),
        quality: "good",
      });
    }
  }
}
