import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createConnection } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "../../testing/free-port.ts";
import { Program } from "./program.ts";

export const MOSQUITTO = "/usr/sbin/mosquitto";

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: "127.0.0.1" });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/**
 * Debian's mosquitto (2.0) with its own config on a free port, never the system service.
 * max_inflight_messages is the publishers' window and max_queued_messages 100000: with the
 * defaults (20 and 1000) it acknowledges QoS 1 messages and then drops them once the subscriber
 * falls behind (DESIGN.md). No persistence, as by default.
 */
export class MosquittoPeer {
  readonly root: string;
  readonly url: string;
  readonly program: Program;

  private constructor(root: string, url: string, program: Program) {
    this.root = root;
    this.url = url;
    this.program = program;
  }

  static async start(window: number): Promise<MosquittoPeer> {
    const root = mkdtempSync(join(tmpdir(), "caudal-bench-mosquitto-"));
    const port = await freePort();
    const config = [
      `listener ${port} 127.0.0.1`,
      "allow_anonymous true",
      "persistence false",
      `max_inflight_messages ${window}`,
      "max_queued_messages 100000",
      "log_dest stderr",
      "log_type error",
      "log_type warning",
      "",
    ].join("\n");
    const file = join(root, "mosquitto.conf");
    writeFileSync(file, config);
    const program = new Program(
      "mosquitto",
      MOSQUITTO,
      ["-c", file],
      { PATH: process.env.PATH },
      join(root, "mosquitto.log"),
    );
    const peer = new MosquittoPeer(root, `mqtt://127.0.0.1:${port}`, program);
    try {
      await program.waitReady(() => accepts(port), 15_000);
    } catch (err) {
      await peer.stop();
      throw err;
    }
    return peer;
  }

  async stop(): Promise<void> {
    await this.program.stop();
    rmSync(this.root, { recursive: true, force: true });
  }
}

export function mosquittoMissing(): string | null {
  return existsSync(MOSQUITTO) ? null : `${MOSQUITTO} not found`;
}
