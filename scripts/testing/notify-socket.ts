import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { DEBIAN_PYTHON } from "../sim/pymodbus-peer.ts";

/**
 * A stand-in for systemd's notification socket (sd_notify(3)): an AF_UNIX datagram socket, bound
 * by Debian's python3 since Node has none. Each datagram is one message ("READY=1", "WATCHDOG=1"),
 * kept in arrival order. systemd-notify's BARRIER=1 datagrams are dropped: reading them without
 * ancillary data closes the file descriptor they carry, which is all the barrier waits for.
 */
export class NotifySocket {
  readonly path: string;
  readonly messages: string[] = [];
  readonly #dir: string;
  readonly #child: ChildProcess;
  readonly #waiters = new Set<() => void>();

  private constructor(dir: string, child: ChildProcess) {
    this.#dir = dir;
    this.path = join(dir, "notify.sock");
    this.#child = child;
  }

  static async start(): Promise<NotifySocket> {
    const dir = mkdtempSync(join(tmpdir(), "caudal-notify-"));
    const code = [
      "import socket, sys",
      "s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)",
      "s.bind(sys.argv[1])",
      "print('bound', flush=True)",
      "while True:",
      "    for line in s.recv(4096).decode().splitlines():",
      "        print(line, flush=True)",
    ].join("\n");
    const child = spawn(DEBIAN_PYTHON, ["-c", code, join(dir, "notify.sock")], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    const socket = new NotifySocket(dir, child);
    const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
    await new Promise<void>((resolve, reject) => {
      child.once("error", reject);
      child.once("exit", (status) => reject(new Error(`notify socket exited (${status})`)));
      lines.on("line", (line) => {
        if (line === "bound") return resolve();
        if (line === "BARRIER=1") return;
        socket.messages.push(line);
        for (const wake of socket.#waiters) wake();
      });
    });
    return socket;
  }

  /** Resolves once `count` messages equal to `message` have arrived; rejects after `timeoutMs`. */
  waitFor(message: string, timeoutMs: number, count = 1): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = () => {
        if (this.count(message) < count) return;
        cleanup();
        resolve();
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(
          new Error(`no ${count}× ${message} within ${timeoutMs} ms; got ${JSON.stringify(this.messages)}`),
        );
      }, timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        this.#waiters.delete(check);
      };
      this.#waiters.add(check);
      check();
    });
  }

  count(message: string): number {
    return this.messages.filter((m) => m === message).length;
  }

  stop(): void {
    this.#child.kill("SIGKILL");
    rmSync(this.#dir, { recursive: true, force: true });
  }
}
