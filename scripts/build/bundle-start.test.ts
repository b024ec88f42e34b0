import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleAgent } from "./bundle-agent.ts";

/**
 * The agent's esbuild bundle, the main script of every single executable, started as node runs
 * it (the SEA adds only the Node binary around it). Node warns of deprecated APIs (DEP0169,
 * url.parse) only for callers outside node_modules: run from source mqtt.js is inside it and
 * stays silent, in the bundle everything is one file outside it, so only the bundle shows it.
 */
describe("the agent's bundle at start", () => {
  let work: string;
  let broker: Server;
  let connected: Promise<Socket>;
  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), "caudal-bundle-start-"));
    const bundle = await bundleAgent({ version: "0.0.0", commit: "test" });
    writeFileSync(join(work, "agent.cjs"), bundle.code);
    // A TCP listener in the broker's place: the agent's first connection reaching it shows that
    // the MQTT client got past parsing the broker URL and opened its socket.
    broker = createServer();
    connected = new Promise((resolve) => broker.once("connection", resolve));
    await new Promise<void>((resolve) => broker.listen(0, "127.0.0.1", resolve));
  }, 120_000);
  afterAll(async () => {
    await new Promise((resolve) => broker?.close(resolve));
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it("prints no deprecation warning while it starts and connects to its broker", async () => {
    const address = broker.address();
    const port = typeof address === "object" && address ? address.port : 0;
    const config = join(work, "agent.json");
    writeFileSync(
      config,
      JSON.stringify({
        version: 1,
        mqtt_url: `mqtt://127.0.0.1:${port}`,
        project_id: randomUUID(),
        agent_token: "t".repeat(32),
        data_dir: join(work, "data"),
        local_api_port: 0,
      }),
    );
    const agent = spawn(process.execPath, [join(work, "agent.cjs")], {
      cwd: work,
      env: { PATH: process.env.PATH ?? "", HOME: work, AGENT_CONFIG: config },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    let stdout = "";
    agent.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    agent.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    const exited = new Promise((resolve) => agent.once("exit", resolve));
    try {
      const socket = await connected;
      socket.destroy();
      // Warnings are written on the next tick after the call: give the process a moment.
      await new Promise((r) => setTimeout(r, 500));
    } finally {
      agent.kill("SIGTERM");
      await exited;
    }
    // Its log (standard output) says it ran; Node's warnings go to standard error.
    expect(stdout).toContain("caudal-agent started");
    expect(stderr).not.toContain("DeprecationWarning");
    expect(stderr).not.toContain("DEP0169");
  }, 60_000);
});
