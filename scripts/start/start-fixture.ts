import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { connect } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort } from "../testing/free-port.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));

export type Ports = { http: number; mqtt: number; sim: number; opcuaSim: number; agent: number };

export async function freePorts(): Promise<Ports> {
  return {
    http: await freePort(),
    mqtt: await freePort(),
    sim: await freePort(),
    opcuaSim: await freePort(),
    agent: await freePort(),
  };
}

export type Started = {
  child: ChildProcess;
  output: () => string;
  exit: Promise<number | null>;
  /** Resolves once the output contains `text`; rejects when the time is up or the process ends first. */
  waitFor: (text: string | RegExp, ms: number) => Promise<void>;
};

/** `npm start` minus the dependency install: scripts/start.ts with its own .env and data dir. */
export function startSystem(dir: string, ports: Ports, extraEnv: Record<string, string> = {}): Started {
  let output = "";
  const child = spawn(process.execPath, ["scripts/start.ts"], {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      CAUDAL_ENV_FILE: join(dir, ".env"),
      PORT: String(ports.http),
      HOST: "127.0.0.1",
      MQTT_PORT: String(ports.mqtt),
      SIM_PORT: String(ports.sim),
      OPCUA_SIM_PORT: String(ports.opcuaSim),
      AGENT_LOCAL_API_PORT: String(ports.agent),
      DATA_DIR: join(dir, "data"),
      CONSOLE_DIR: join(dir, "console"),
      LOG_LEVEL: "warn",
      ...extraEnv,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exit = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const waitFor = async (text: string | RegExp, ms: number) => {
    const deadline = Date.now() + ms;
    const found = () => (typeof text === "string" ? output.includes(text) : text.test(output));
    while (!found()) {
      if (child.exitCode !== null) throw new Error(`start.ts exited before printing ${text}:\n${output}`);
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${text}:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  return { child, output: () => output, exit, waitFor };
}

/** The process ids of `pid`'s children (Linux procps). */
export function childPids(pid: number): number[] {
  try {
    return execFileSync("ps", ["-o", "pid=", "--ppid", String(pid)], { encoding: "utf8" })
      .split("\n")
      .map((l) => Number(l.trim()))
      .filter((n) => Number.isInteger(n) && n > 0);
  } catch {
    // ps exits 1 when there is no child.
    return [];
  }
}

export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** True when nothing accepts TCP connections on 127.0.0.1:port. */
export function portClosed(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(false);
    });
    socket.once("error", () => resolve(true));
  });
}

export { freePort };
