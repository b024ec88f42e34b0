import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("..", import.meta.url));

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

type Started = { child: ChildProcess; output: () => string; exit: Promise<number | null> };

function startSystem(dir: string, port: number): Started {
  let output = "";
  const child = spawn(process.execPath, ["scripts/start.ts"], {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      CAUDAL_ENV_FILE: join(dir, ".env"),
      PORT: String(port),
      HOST: "127.0.0.1",
      MQTT_PORT: "0",
      DATA_DIR: join(dir, "data"),
      LOG_LEVEL: "warn",
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
  return { child, output: () => output, exit };
}

async function until(condition: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** `npm start` minus the dependency install: scripts/start.ts with its own .env and data dir. */
describe("scripts/start.ts", () => {
  let dir: string;
  let running: Started | undefined;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "caudal-start-"));
  });
  afterEach(async () => {
    if (running && running.child.exitCode === null) {
      running.child.kill("SIGKILL");
      await running.exit;
    }
    running = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    it(`writes .env, serves /health, prints the URLs, and stops on ${signal}`, async () => {
      const port = await freePort();
      running = startSystem(dir, port);
      const started = running;
      await until(() => started.output().includes("Press Ctrl-C to stop."), 60_000);
      expect(statSync(join(dir, ".env")).mode & 0o777).toBe(0o600);
      const out = started.output();
      expect(out).toContain(`http://127.0.0.1:${port}/docs`);
      expect(out).toContain(`http://127.0.0.1:${port}/health`);
      expect(out).toContain(`http://127.0.0.1:${port}/metrics`);
      expect(out).toContain("/api/auth/setup/register");
      const health = await fetch(`http://127.0.0.1:${port}/health`);
      expect(health.status).toBe(200);

      started.child.kill(signal);
      expect(await started.exit).toBe(0);
      // The server child is gone too: nothing listens any more.
      await expect(fetch(`http://127.0.0.1:${port}/health`)).rejects.toThrow();
    }, 90_000);
  }

  it("exits non-zero when the server cannot start (port taken)", async () => {
    const blocker = createServer();
    const port = await new Promise<number>((resolve) =>
      blocker.listen(0, "127.0.0.1", () => {
        const address = blocker.address();
        resolve(typeof address === "object" && address ? address.port : 0);
      }),
    );
    try {
      running = startSystem(dir, port);
      const code = await running.exit;
      expect(code).not.toBe(0);
      expect(running.output()).toMatch(/server\s+exited with code/);
    } finally {
      blocker.close();
    }
  }, 90_000);
});
