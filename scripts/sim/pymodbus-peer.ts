import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * Test peers written by others: Debian's python3-pymodbus as a Modbus TCP/RTU server, and socat
 * for a pseudo-terminal pair standing in for an RS-485 line. Debian's python is /usr/bin/python3
 * (the first python3 on PATH may be another one without the package).
 */
export const DEBIAN_PYTHON = "/usr/bin/python3";
const SCRIPT = fileURLToPath(new URL("./pymodbus_server.py", import.meta.url));
const INSTALL_HINT = "install with scripts/debian-packages.sh";

export type RegisterTables = Partial<
  Record<"holding" | "input" | "coil" | "discrete", Record<number, number>>
>;

/** Why pymodbus tests cannot run here, or null when they can. */
export function pymodbusSkipReason(): string | null {
  if (!existsSync(DEBIAN_PYTHON)) return `${DEBIAN_PYTHON} not found (${INSTALL_HINT})`;
  // pymodbus.server imports pyserial even for TCP, and Debian's python3-pymodbus only recommends
  // python3-serial-asyncio (which brings it): without the recommends the import fails.
  const probe = spawnSync(DEBIAN_PYTHON, ["-c", "import pymodbus.server.async_io, serial_asyncio"], {
    encoding: "utf8",
  });
  if (probe.status === 0) return null;
  const error = probe.stderr.trim().split("\n").at(-1) ?? `exit status ${probe.status}`;
  return `${DEBIAN_PYTHON} cannot import pymodbus.server.async_io and serial_asyncio (${error}; ${INSTALL_HINT})`;
}

/** Why socat cannot be used here, or null when it can. */
export function socatSkipReason(): string | null {
  const socat = spawnSync("socat", ["-V"], { encoding: "utf8" });
  return socat.status === 0 ? null : `socat is not installed (${INSTALL_HINT})`;
}

/** Why RTU tests cannot run here (pymodbus or socat missing), or null when they can. */
export function rtuSkipReason(): string | null {
  return pymodbusSkipReason() ?? socatSkipReason();
}

function waitForLine(child: ChildProcess, prefix: string, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    const timer = setTimeout(
      () => finish(new Error(`no "${prefix}" within ${timeoutMs} ms: ${err.trim()}`)),
      timeoutMs,
    );
    const onOut = (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split("\n").find((l) => l.startsWith(prefix));
      if (line !== undefined) finish(undefined, line.slice(prefix.length).trim());
    };
    const onErr = (chunk: Buffer) => {
      err += chunk.toString();
    };
    const onExit = (code: number | null) =>
      finish(new Error(`exited with ${code} before "${prefix}": ${err.trim()}`));
    const finish = (e: Error | undefined, value = "") => {
      clearTimeout(timer);
      child.stdout?.off("data", onOut);
      child.off("exit", onExit);
      if (e) reject(e);
      else resolve(value);
    };
    child.stdout?.on("data", onOut);
    child.stderr?.on("data", onErr);
    child.once("exit", onExit);
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
}

export class PymodbusPeer {
  readonly #child: ChildProcess;
  readonly #dir: string;
  /** TCP port (0 for RTU). */
  readonly port: number;

  private constructor(child: ChildProcess, dir: string, port: number) {
    this.#child = child;
    this.#dir = dir;
    this.port = port;
  }

  /** Starts pymodbus_server.py on `where` (a TCP port, 0 = any free one, or a serial device path). */
  static async start(options: {
    mode: "tcp" | "rtu";
    where: string | number;
    registers: RegisterTables;
    slaveIds?: number[];
  }): Promise<PymodbusPeer> {
    const dir = mkdtempSync(join(tmpdir(), "caudal-pymodbus-"));
    const file = join(dir, "registers.json");
    writeFileSync(file, JSON.stringify(options.registers));
    const args = [SCRIPT, options.mode, String(options.where), file, (options.slaveIds ?? [1]).join(",")];
    const child = spawn(DEBIAN_PYTHON, args, { stdio: ["ignore", "pipe", "pipe"] });
    try {
      const ready = await waitForLine(child, "READY", 15_000);
      return new PymodbusPeer(child, dir, options.mode === "tcp" ? Number(ready) : 0);
    } catch (err) {
      await stopChild(child);
      rmSync(dir, { recursive: true, force: true });
      throw err;
    }
  }

  async stop(): Promise<void> {
    await stopChild(this.#child);
    rmSync(this.#dir, { recursive: true, force: true });
  }
}

/** Two linked pseudo-terminals (socat): what one end writes, the other reads, like a serial line. */
export class PtyPair {
  readonly #child: ChildProcess;
  readonly #dir: string;
  readonly a: string;
  readonly b: string;

  private constructor(child: ChildProcess, dir: string) {
    this.#child = child;
    this.#dir = dir;
    this.a = join(dir, "a");
    this.b = join(dir, "b");
  }

  static async start(): Promise<PtyPair> {
    const dir = mkdtempSync(join(tmpdir(), "caudal-pty-"));
    const child = spawn(
      "socat",
      ["-d", "-d", `pty,raw,echo=0,link=${join(dir, "a")}`, `pty,raw,echo=0,link=${join(dir, "b")}`],
      { stdio: ["ignore", "ignore", "pipe"] },
    );
    const pair = new PtyPair(child, dir);
    try {
      // socat logs "starting data transfer loop" once both ends exist.
      await new Promise<void>((resolve, reject) => {
        let err = "";
        const timer = setTimeout(() => reject(new Error(`socat not ready: ${err}`)), 10_000);
        child.stderr?.on("data", (chunk: Buffer) => {
          err += chunk.toString();
          if (err.includes("starting data transfer loop")) {
            clearTimeout(timer);
            resolve();
          }
        });
        child.once("exit", (code) => {
          clearTimeout(timer);
          reject(new Error(`socat exited with ${code}: ${err}`));
        });
      });
      return pair;
    } catch (err) {
      await pair.stop();
      throw err;
    }
  }

  async stop(): Promise<void> {
    await stopChild(this.#child);
    rmSync(this.#dir, { recursive: true, force: true });
  }
}
