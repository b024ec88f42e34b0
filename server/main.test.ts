import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { freePort, portAccepts } from "../scripts/testing/free-port.ts";

const MAIN = fileURLToPath(new URL("./main.ts", import.meta.url));

type Run = { code: number | null; stderr: string; everListened: boolean };

/** Runs `node server/main.ts` with exactly `env`, probing both ports until it exits. */
async function runMain(
  env: Record<string, string>,
  ports: number[],
  stopWith?: NodeJS.Signals,
): Promise<Run> {
  const child: ChildProcess = spawn(process.execPath, [MAIN], { env, stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  let done = false;
  void exited.then(() => {
    done = true;
  });
  let everListened = false;
  const deadline = Date.now() + 15_000;
  while (!done && Date.now() < deadline) {
    for (const port of ports) if (await portAccepts(port)) everListened = true;
    if (everListened && stopWith) child.kill(stopWith);
    await new Promise((r) => setTimeout(r, 25));
  }
  if (!done) child.kill("SIGKILL");
  return { code: await exited, stderr, everListened };
}

describe("start-up refuses a missing or invalid TOTP_SECRET_ENCRYPTION_KEY (spec §5.8)", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "caudal-main-"));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  const baseEnv = async () => {
    const port = await freePort();
    const mqttPort = await freePort();
    return {
      ports: [port, mqttPort],
      env: {
        PATH: process.env.PATH ?? "",
        PORT: String(port),
        MQTT_PORT: String(mqttPort),
        HOST: "127.0.0.1",
        DATA_DIR: dataDir,
        LOG_LEVEL: "silent",
        NODE_ENV: "test",
      },
    };
  };

  const invalid: [string, string | undefined][] = [
    ["missing", undefined],
    ["not base64", "this is not base64!"],
    ["31 bytes", randomBytes(31).toString("base64")],
    ["33 bytes", randomBytes(33).toString("base64")],
  ];

  for (const [label, key] of invalid) {
    it(`exits non-zero before listening: ${label}`, async () => {
      const { env, ports } = await baseEnv();
      const run = await runMain(key === undefined ? env : { ...env, TOTP_SECRET_ENCRYPTION_KEY: key }, ports);
      expect(run.code).not.toBe(0);
      expect(run.code).not.toBeNull();
      expect(run.stderr).toContain("TOTP_SECRET_ENCRYPTION_KEY");
      expect(run.stderr).toMatch(/32 bytes|required/);
      // The rejected value is not echoed back.
      if (key) expect(run.stderr).not.toContain(key);
      expect(run.everListened).toBe(false);
      for (const port of ports) expect(await portAccepts(port)).toBe(false);
    });
  }

  it("control: with a valid key the same command listens, and stops cleanly on SIGTERM", async () => {
    const { env, ports } = await baseEnv();
    const first = ports[0] ?? 0;
    const run = await runMain(
      { ...env, TOTP_SECRET_ENCRYPTION_KEY: randomBytes(32).toString("base64") },
      [first],
      "SIGTERM",
    );
    expect(run.everListened).toBe(true);
    expect(run.code).toBe(0);
  });
});

describe("a closed terminal (SIGHUP) stops the server like Ctrl-C", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "caudal-main-hup-"));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it("exits 0 and closes the database: no write-ahead log is left behind", async () => {
    const port = await freePort();
    const run = await runMain(
      {
        PATH: process.env.PATH ?? "",
        PORT: String(port),
        MQTT_PORT: String(await freePort()),
        HOST: "127.0.0.1",
        DATA_DIR: dataDir,
        LOG_LEVEL: "silent",
        NODE_ENV: "test",
        TOTP_SECRET_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
      },
      [port],
      "SIGHUP",
    );
    expect(run.everListened).toBe(true);
    expect(run.code).toBe(0);
    expect(existsSync(join(dataDir, "caudal.db"))).toBe(true);
    // SQLite removes the -wal file when the last connection closes cleanly.
    expect(existsSync(join(dataDir, "caudal.db-wal"))).toBe(false);
  });
});
