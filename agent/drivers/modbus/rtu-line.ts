import { closeSync, constants, openSync } from "node:fs";
import { ReadStream, WriteStream } from "node:tty";

/** Modbus CRC-16 (polynomial 0xA001, initial 0xFFFF), sent low byte first (Modbus over Serial Line §6.2.2). */
export function crc16(bytes: Buffer): number {
  let crc = 0xffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let i = 0; i < 8; i++) crc = crc & 1 ? (crc >>> 1) ^ 0xa001 : crc >>> 1;
  }
  return crc;
}

export type SlaveScript = {
  delayMs: (index: number) => number;
  answer: (index: number, count: number) => number[];
};

export type RtuRequest = { unit: number; fc: number; start: number; count: number; at: number };

/**
 * A scripted RTU slave on one end of a pseudo-terminal pair, for tests that need to see the line
 * itself: when each request arrived, when each reply left, and replies that come late. Answers
 * FC 3 requests with the registers `answer` returns, after `delayMs(request index)`.
 */
export class ScriptedRtuSlave {
  readonly requests: RtuRequest[] = [];
  /** performance.now() when each reply was written, by request index. */
  readonly repliedAt: number[] = [];
  readonly #fd: number;
  readonly #in: ReadStream;
  readonly #out: WriteStream;
  readonly #timers = new Set<NodeJS.Timeout>();
  readonly #script: SlaveScript;
  #pending = Buffer.alloc(0);

  constructor(path: string, script: SlaveScript) {
    this.#script = script;
    this.#fd = openSync(path, constants.O_RDWR | constants.O_NOCTTY);
    this.#in = new ReadStream(this.#fd);
    this.#out = new WriteStream(this.#fd);
    this.#in.on("data", (chunk: Buffer) => this.#receive(chunk));
  }

  #receive(chunk: Buffer): void {
    this.#pending = Buffer.concat([this.#pending, chunk]);
    // Requests for FC 1–4 are 8 bytes: unit, fc, start, count, CRC.
    while (this.#pending.length >= 8) {
      const frame = this.#pending.subarray(0, 8);
      this.#pending = this.#pending.subarray(8);
      const index = this.requests.length;
      const request = {
        unit: frame[0] ?? 0,
        fc: frame[1] ?? 0,
        start: frame.readUInt16BE(2),
        count: frame.readUInt16BE(4),
        at: performance.now(),
      };
      this.requests.push(request);
      const timer = setTimeout(() => {
        this.#timers.delete(timer);
        this.#reply(index, request);
      }, this.#script.delayMs(index));
      this.#timers.add(timer);
    }
  }

  #reply(index: number, request: RtuRequest): void {
    const words = this.#script.answer(index, request.count);
    const body = Buffer.alloc(3 + words.length * 2 + 2);
    body[0] = request.unit;
    body[1] = request.fc;
    body[2] = words.length * 2;
    words.forEach((w, i) => {
      body.writeUInt16BE(w, 3 + i * 2);
    });
    body.writeUInt16LE(crc16(body.subarray(0, body.length - 2)), body.length - 2);
    this.#out.write(body);
    this.repliedAt[index] = performance.now();
  }

  close(): void {
    for (const t of this.#timers) clearTimeout(t);
    this.#in.destroy();
    this.#out.destroy();
    try {
      closeSync(this.#fd);
    } catch {
      // Already closed by the streams.
    }
  }
}
