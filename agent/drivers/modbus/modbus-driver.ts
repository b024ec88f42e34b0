import modbusSerial from "modbus-serial";
import type { AgentDevice, AgentVariable } from "../../../shared/mqtt/agent-config.ts";
import { type Driver, LinkError, type TagResult } from "../driver.ts";
import { type Block, type BlockTag, planBlocks } from "./blocks.ts";
import { decodeRegisters } from "./decode.ts";

// modbus-serial is CommonJS; under NodeNext its default import is module.exports, whose
// `default` property is the client class.
const ModbusRTU = modbusSerial.default;
type ModbusRTU = InstanceType<typeof ModbusRTU>;

type Transport =
  | { kind: "tcp"; host: string; port: number }
  | { kind: "rtu"; path: string; baudRate: number };

// Modbus exception codes (Modbus APP v1.1b3 §7).
const EXCEPTIONS: Record<number, string> = {
  1: "illegal function",
  2: "illegal data address",
  3: "illegal data value",
  4: "server device failure",
  5: "acknowledge",
  6: "server device busy",
  10: "gateway path unavailable",
  11: "gateway target device failed to respond",
};

function transportOf(device: AgentDevice): Transport {
  if (device.protocol === "modbus_rtu") {
    // For RTU, `host` carries the serial device path and `port` the baud rate.
    return { kind: "rtu", path: device.host ?? "/dev/ttyUSB0", baudRate: device.port ?? 9600 };
  }
  return { kind: "tcp", host: device.host ?? "127.0.0.1", port: device.port ?? 502 };
}

function isExceptionError(err: unknown): err is { modbusCode: number; message: string } {
  return typeof err === "object" && err !== null && "modbusCode" in err && typeof err.modbusCode === "number";
}

function isTimeout(err: unknown): boolean {
  return typeof err === "object" && err !== null && "errno" in err && err.errno === "ETIMEDOUT";
}

/** Modbus TCP and RTU through modbus-serial, with block reads (FC 1–4). */
export class ModbusDriver implements Driver {
  readonly #device: AgentDevice;
  readonly #timeoutMs: number;
  #client: ModbusRTU | undefined;
  #plan: { key: string; blocks: Block[] } | undefined;

  constructor(device: AgentDevice, options: { timeoutMs: number }) {
    this.#device = device;
    this.#timeoutMs = options.timeoutMs;
  }

  get connected(): boolean {
    return this.#client?.isOpen ?? false;
  }

  async connect(): Promise<void> {
    await this.close();
    const client = new ModbusRTU();
    const transport = transportOf(this.#device);
    try {
      if (transport.kind === "tcp") await client.connectTCP(transport.host, { port: transport.port });
      else await client.connectRTUBuffered(transport.path, { baudRate: transport.baudRate });
    } catch (err) {
      throw new LinkError(`connect failed: ${err instanceof Error ? err.message : String(err)}`);
    }
    client.setID(this.#device.slave_id ?? 1);
    client.setTimeout(this.#timeoutMs);
    this.#client = client;
  }

  async read(variables: readonly AgentVariable[]): Promise<TagResult[]> {
    const client = this.#client;
    if (!client?.isOpen) throw new LinkError("not connected");
    const results: TagResult[] = [];
    const tags: BlockTag[] = [];
    const byId = new Map<string, AgentVariable>();
    for (const v of variables) {
      if (v.register_address === null || v.data_type === "string") {
        results.push({
          variableId: v.id,
          value: null,
          quality: "config_error",
          detail: "no numeric register address",
        });
        continue;
      }
      byId.set(v.id, v);
      tags.push({ id: v.id, kind: v.register_kind, address: v.register_address, dataType: v.data_type });
    }
    for (const block of this.#blocks(tags)) {
      let data: number[] | boolean[];
      try {
        data = await this.#readBlock(client, block);
      } catch (err) {
        if (isExceptionError(err)) {
          const detail = `exception ${err.modbusCode} (${EXCEPTIONS[err.modbusCode] ?? "unknown"})`;
          for (const t of block.tags)
            results.push({ variableId: t.id, value: null, quality: "device_exception", detail });
          continue;
        }
        if (isTimeout(err)) {
          // A timed-out request leaves the stream in an unknown state: treat it as a lost link.
          throw new LinkError(`timeout after ${this.#timeoutMs} ms`);
        }
        throw new LinkError(err instanceof Error ? err.message : String(err));
      }
      for (const t of block.tags) {
        const v = byId.get(t.id);
        if (!v) continue;
        const offset = t.address - block.start;
        if (block.kind === "coil" || block.kind === "discrete") {
          results.push({ variableId: t.id, value: (data as boolean[])[offset] ? 1 : 0, quality: "good" });
          continue;
        }
        const regs = (data as number[]).slice(offset);
        results.push({
          variableId: t.id,
          value: decodeRegisters(regs, v.data_type, v.word_order, v.scale_factor),
          quality: "good",
        });
      }
    }
    return results;
  }

  async close(): Promise<void> {
    const client = this.#client;
    this.#client = undefined;
    if (client?.isOpen) await new Promise<void>((resolve) => client.close(() => resolve()));
  }

  #blocks(tags: BlockTag[]): Block[] {
    const key = tags.map((t) => `${t.id}@${t.kind}${t.address}`).join(",");
    if (this.#plan?.key !== key) this.#plan = { key, blocks: planBlocks(tags) };
    return this.#plan.blocks;
  }

  async #readBlock(client: ModbusRTU, block: Block): Promise<number[] | boolean[]> {
    switch (block.kind) {
      case "holding":
        return (await client.readHoldingRegisters(block.start, block.count)).data; // FC 3
      case "input":
        return (await client.readInputRegisters(block.start, block.count)).data; // FC 4
      case "coil":
        return (await client.readCoils(block.start, block.count)).data; // FC 1
      case "discrete":
        return (await client.readDiscreteInputs(block.start, block.count)).data; // FC 2
    }
  }
}
