import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { type AddressInfo, connect, createServer, type Server, type Socket } from "node:net";
import { DEBIAN_PYTHON } from "./pymodbus-peer.ts";

/**
 * Peers that fail the way field devices do, for link-robustness tests.
 *
 * SilentPeer accepts TCP connections and never answers a request: a PLC whose Modbus task hung, or
 * a gateway whose serial side is dead. With `holdHalfOpen` it also never completes a TCP close
 * (it keeps its half open), like a host that vanished from the network.
 */
export class SilentPeer {
  /** performance.now() of each accepted connection. */
  readonly connectedAt: number[] = [];
  /** Bytes received over all connections. */
  received = 0;
  /** Connections the client has closed (FIN received). */
  ended = 0;
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();

  constructor(options: { holdHalfOpen?: boolean } = {}) {
    this.#server = createServer({ allowHalfOpen: options.holdHalfOpen ?? false }, (socket) => {
      this.connectedAt.push(performance.now());
      this.#sockets.add(socket);
      socket.on("data", (chunk) => {
        this.received += chunk.length;
      });
      socket.on("end", () => {
        this.ended += 1;
      });
      socket.on("error", () => {});
      socket.on("close", () => this.#sockets.delete(socket));
    });
  }

  get port(): number {
    return (this.#server.address() as AddressInfo | null)?.port ?? 0;
  }

  get openConnections(): number {
    return this.#sockets.size;
  }

  listen(): Promise<void> {
    return new Promise((resolve) => this.#server.listen(0, "127.0.0.1", () => resolve()));
  }

  close(): Promise<void> {
    for (const s of this.#sockets) s.destroy();
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }
}

/**
 * A listener whose accept queue is full, so the kernel drops every new SYN and a connect hangs:
 * what a host behind a dropping firewall looks like. Node always accepts, so a small Python
 * process listens with a backlog of 0 and never accepts; one connection fills the queue.
 */
export class SynDropPeer {
  readonly #child: ChildProcess;
  readonly #filler: Socket[] = [];
  port = 0;

  private constructor(child: ChildProcess) {
    this.#child = child;
  }

  /** Why the listener cannot run here, or null when it can. */
  static missing(): string | null {
    return existsSync(DEBIAN_PYTHON) ? null : `${DEBIAN_PYTHON} not found (Debian's python3)`;
  }

  static async start(): Promise<SynDropPeer> {
    const code = [
      "import socket, sys",
      "s = socket.socket()",
      "s.bind(('127.0.0.1', 0))",
      "s.listen(0)",
      "print(s.getsockname()[1], flush=True)",
      "sys.stdin.read()",
    ].join("\n");
    const child = spawn(DEBIAN_PYTHON, ["-c", code], { stdio: ["pipe", "pipe", "inherit"] });
    const peer = new SynDropPeer(child);
    peer.port = await new Promise<number>((resolve, reject) => {
      child.stdout?.once("data", (chunk: Buffer) => resolve(Number(chunk.toString().trim())));
      child.once("exit", (code) => reject(new Error(`listener exited with ${code}`)));
    });
    // Fill the accept queue (backlog 0 holds one connection).
    await new Promise<void>((resolve, reject) => {
      const s = connect(peer.port, "127.0.0.1", () => resolve());
      s.on("error", reject);
      peer.#filler.push(s);
    });
    return peer;
  }

  async stop(): Promise<void> {
    for (const s of this.#filler) s.destroy();
    if (this.#child.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      this.#child.once("exit", () => resolve());
      this.#child.stdin?.end();
    });
  }
}
