import { type ChildProcess, execFile, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Debian's mosquitto-clients (`mosquitto_pub`, `mosquitto_sub`) as independent MQTT 3.1.1 peers
 * of the embedded broker. scripts/debian-packages.sh installs them.
 */

/** Why the clients cannot be used here, or null when they can. */
export function mosquittoMissing(): string | null {
  const absent = ["mosquitto_pub", "mosquitto_sub", "stdbuf"].filter(
    (cmd) => spawnSync("sh", ["-c", `command -v ${cmd}`]).status !== 0,
  );
  return absent.length === 0
    ? null
    : `${absent.join(", ")} not found (scripts/debian-packages.sh installs mosquitto-clients as root)`;
}

export type Credentials = { username: string; password: string };
export type Outcome = { code: number; stdout: string; stderr: string };

export function connectArgs(port: number, c: Credentials): string[] {
  return ["-h", "127.0.0.1", "-p", String(port), "-V", "mqttv311", "-u", c.username, "-P", c.password];
}

/** One mosquitto_pub run: its exit code (CONNACK refusals exit with the return code) and output. */
export function mosquittoPub(
  port: number,
  c: Credentials,
  topic: string,
  message: string,
  qos: 0 | 1 = 1,
  retain = false,
): Promise<Outcome> {
  const args = [...connectArgs(port, c), "-t", topic, "-m", message, "-q", String(qos)];
  if (retain) args.push("-r");
  return new Promise((resolve) =>
    execFile("mosquitto_pub", args, { timeout: 10_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === "number" ? err.code : -1) : 0;
      resolve({ code, stdout, stderr });
    }),
  );
}

/** One mosquitto_pub run sending `bytes` as they are (-f: a binary payload such as a Sparkplug NCMD). */
export async function mosquittoPubBytes(
  port: number,
  c: Credentials,
  topic: string,
  bytes: Uint8Array,
  qos: 0 | 1 = 1,
  retain = false,
): Promise<Outcome> {
  const dir = mkdtempSync(join(tmpdir(), "caudal-mosquitto-pub-"));
  const file = join(dir, "payload");
  writeFileSync(file, bytes);
  const args = [...connectArgs(port, c), "-t", topic, "-f", file, "-q", String(qos)];
  if (retain) args.push("-r");
  try {
    return await new Promise((resolve) =>
      execFile("mosquitto_pub", args, { timeout: 10_000 }, (err, stdout, stderr) => {
        const code = err ? (typeof err.code === "number" ? err.code : -1) : 0;
        resolve({ code, stdout, stderr });
      }),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A running mosquitto_sub (-v: "topic payload" lines, or `format` (its -F, e.g. "%t %r %x" for
 * topic, retain flag and the payload in hex); -d: protocol debug lines, used to know when the
 * SUBACK arrived). It reconnects on its own after a dropped connection, as an HMI would.
 */
export class MosquittoSub {
  readonly #child: ChildProcess;
  readonly #exit: Promise<Outcome>;
  #stdout = "";
  #stderr = "";
  #exited = false;

  constructor(port: number, c: Credentials, filters: string[], format?: string) {
    const output = format === undefined ? ["-v"] : ["-F", format];
    const args = [...connectArgs(port, c), ...output, "-d", "-q", "1", ...filters.flatMap((f) => ["-t", f])];
    // stdio is block-buffered on a pipe: stdbuf (coreutils) makes each line arrive as it is printed.
    this.#child = spawn("stdbuf", ["-oL", "mosquitto_sub", ...args], { stdio: ["ignore", "pipe", "pipe"] });
    this.#child.stdout?.on("data", (b: Buffer) => {
      this.#stdout += b.toString("utf8");
    });
    this.#child.stderr?.on("data", (b: Buffer) => {
      this.#stderr += b.toString("utf8");
    });
    this.#exit = new Promise((resolve) =>
      this.#child.once("exit", (code) => {
        this.#exited = true;
        resolve({ code: code ?? -1, stdout: this.#stdout, stderr: this.#stderr });
      }),
    );
  }

  get exited(): boolean {
    return this.#exited;
  }

  get stderr(): string {
    return this.#stderr;
  }

  /** Messages received ("topic payload"), without the debug lines. */
  get messages(): string[] {
    return this.#stdout
      .split("\n")
      .filter((l) => l.startsWith("caudal/") || l.startsWith("spBv1.0/") || l.startsWith("$"));
  }

  /** SUBACKs received; granted QoS per filter (128 = refused), in order. */
  get subacks(): number[][] {
    return [
      ...this.#stdout.matchAll(/received SUBACK[^\n]*\n((?:Subscribed \(mid: \d+\): [\d, ]+\n?)+)/g),
    ].map((m) =>
      (m[1] ?? "")
        .replace(/Subscribed \(mid: \d+\): /g, "")
        .trim()
        .split(/[,\s]+/)
        .map(Number),
    );
  }

  /** Resolves with the output when the process exits. */
  exit(): Promise<Outcome> {
    return this.#exit;
  }

  async close(): Promise<void> {
    if (!this.#exited) this.#child.kill("SIGTERM");
    await this.#exit;
  }
}
