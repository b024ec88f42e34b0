import { createHash } from "node:crypto";
import { once } from "node:events";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import mqtt from "mqtt";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { z } from "zod";
import { ensureEnvFile } from "./start/env-file.ts";
import {
  childPids,
  freePorts,
  isRunning,
  type Ports,
  portClosed,
  type Started,
  startSystem,
} from "./start/start-fixture.ts";

const BANNER_DONE = "Press Ctrl-C to stop.";
const PORT_VARIABLE = {
  http: "PORT",
  mqtt: "MQTT_PORT",
  sim: "SIM_PORT",
  opcuaSim: "OPCUA_SIM_PORT",
  agent: "AGENT_LOCAL_API_PORT",
} as const;

/** Every file under `dir` with its size, mtime and content hash. */
function snapshot(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const name of readdirSync(dir, { recursive: true, encoding: "utf8" })) {
    const path = join(dir, name);
    const stat = statSync(path);
    const hash = stat.isFile() ? createHash("sha256").update(readFileSync(path)).digest("hex") : "dir";
    files[name] = `${stat.mtimeMs} ${stat.mode.toString(8)} ${hash}`;
  }
  return files;
}

/** A plain TCP listener on 127.0.0.1:port, as any other program might hold it. */
function holdPort(port: number): Promise<Server> {
  const server = createServer((socket) => socket.destroy());
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve(server));
  });
}
const demoLogin = z.object({ email: z.string(), password: z.string() });
const agentFile = z.object({ project_id: z.uuid(), agent_token: z.string(), mqtt_url: z.string() });

function mode(path: string): number {
  return statSync(path).mode & 0o777;
}

/** The id printed after `label` in the banner (the project, the well, the tank). */
function printedId(output: string, pattern: RegExp): string {
  const id = pattern.exec(output)?.[1];
  if (!id) throw new Error(`no match for ${pattern} in:\n${output}`);
  return id;
}

async function login(base: string, dataDir: string): Promise<string> {
  const res = await fetch(`${base}/api/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    // What the banner tells a person to do: curl -d @data/demo.json.
    body: readFileSync(join(dataDir, "demo.json")),
  });
  expect(res.status).toBe(200);
  return z.object({ token: z.string() }).parse(await res.json()).token;
}

async function withDeadline<T>(what: string, deadline: number, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`timed out waiting for ${what}`)),
      Math.max(0, deadline - Date.now()),
    );
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

async function poll<T>(what: string, deadline: number, check: () => Promise<T | undefined>): Promise<T> {
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const latest = z.array(
  z.object({
    timestamp: z.string(),
    readings: z.array(z.object({ variable: z.string(), value: z.number() })),
  }),
);

/** The variables with a reading stored at or after `sinceMs` for the asset. */
async function freshVariables(
  base: string,
  token: string,
  assetId: string,
  sinceMs: number,
): Promise<string[]> {
  const res = await fetch(`${base}/api/telemetry/${assetId}?limit=20`, {
    headers: { authorization: `Bearer ${token}` },
  });
  if (res.status !== 200) return [];
  const payloads = latest.parse(await res.json()).filter((p) => Date.parse(p.timestamp) >= sinceMs);
  return [...new Set(payloads.flatMap((p) => p.readings.map((r) => r.variable)))].sort();
}

/** Everything `started` wrote, once its output streams have closed (they may outlast its exit). */
async function allOutput(started: Started): Promise<string> {
  for (const stream of [started.child.stdout, started.child.stderr])
    if (stream && !stream.closed) await once(stream, "close");
  return started.output();
}

/**
 * Stops start.ts with `signal` and checks that it and every program it ran have ended. `twice`
 * sends it again 15 ms later, as one Ctrl-C under `npm start` arrives: from the terminal, and
 * forwarded by npm.
 */
async function stopAndCheck(
  running: Started,
  signal: NodeJS.Signals,
  ports: number[],
  twice = false,
): Promise<void> {
  const pid = running.child.pid ?? 0;
  const children = childPids(pid);
  running.child.kill(signal);
  if (twice) {
    await new Promise((resolve) => setTimeout(resolve, 15));
    running.child.kill(signal);
  }
  expect(await running.exit).toBe(0);
  for (const child of children) expect(isRunning(child), `child ${child} still runs`).toBe(false);
  for (const port of ports) expect(await portClosed(port), `port ${port} still open`).toBe(true);
}

describe("npm start (scripts/start.ts)", () => {
  let dir: string;
  let ports: Ports;
  let running: Started | undefined;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), "caudal-start-"));
    ports = await freePorts();
  });
  afterEach(async () => {
    if (running && running.child.exitCode === null) {
      // Its programs run in their own process groups: kill them too, then the supervisor.
      for (const child of childPids(running.child.pid ?? 0)) process.kill(child, "SIGKILL");
      running.child.kill("SIGKILL");
      await running.exit;
    }
    running = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  it("runs server, agent and simulator with the demo: telemetry reaches the API, the WebSocket and MQTT; SIGTERM stops all", async () => {
    const startedAt = Date.now();
    const deadline = startedAt + 20_000;
    running = startSystem(dir, ports);
    const started = running;
    await started.waitFor(BANNER_DONE, 20_000);
    const out = started.output();
    const base = `http://127.0.0.1:${ports.http}`;
    const dataDir = join(dir, "data");

    // Secrets and credentials are private files.
    expect(mode(join(dir, ".env"))).toBe(0o600);
    expect(mode(join(dataDir, "demo.json"))).toBe(0o600);
    expect(mode(join(dataDir, "agent", "agent.json"))).toBe(0o600);
    const credentials = demoLogin.parse(JSON.parse(readFileSync(join(dataDir, "demo.json"), "utf8")));
    const agentConfig = agentFile.parse(
      JSON.parse(readFileSync(join(dataDir, "agent", "agent.json"), "utf8")),
    );
    expect(agentConfig.mqtt_url).toBe(`mqtt://127.0.0.1:${ports.mqtt}`);

    // The banner: URLs, the one-time demo login, and how to watch.
    const projectId = printedId(out, /Demo project "Demo field" \(America\/Bogota\), id ([0-9a-f-]{36})/);
    const wellId = printedId(out, /well\s+Well DF-1\s+([0-9a-f-]{36})/);
    const tankId = printedId(out, /tank\s+Tank TK-1\s+([0-9a-f-]{36})/);
    expect(projectId).toBe(agentConfig.project_id);
    for (const path of ["/docs", "/docs/openapi.yaml", "/health", "/metrics"])
      expect(out).toContain(`${base}${path}`);
    // The console's address comes first.
    const addresses = out.slice(out.indexOf("Caudal is running")).split("\n").slice(1);
    expect(addresses[0]).toBe(`  Console        ${base}/ (the operator console: sign in there)`);
    expect(out).toContain(`http://127.0.0.1:${ports.agent}/ (its local API: /status`);
    expect(out).toContain(`password  ${credentials.password}`);
    expect(out).toContain(`${base}/api/telemetry/${wellId}`);
    expect(out).toContain(
      `ws://127.0.0.1:${ports.http}/api/ws/telemetry?token=$TOKEN&project_id=${projectId}`,
    );
    expect(out).toContain(
      `mosquitto_sub -h 127.0.0.1 -p ${ports.mqtt} -u ${credentials.email} -P "$TOKEN" -t 'caudal/v1/${projectId}/#' -v`,
    );
    // The agent token is never printed.
    expect(out).not.toContain(agentConfig.agent_token);

    const token = await login(base, dataDir);

    // WebSocket and MQTT subscribers, as the banner describes them.
    const ws = new WebSocket(
      `ws://127.0.0.1:${ports.http}/api/ws/telemetry?token=${token}&project_id=${projectId}`,
    );
    const wsTelemetry = new Promise<{ asset_id: string }>((resolve, reject) => {
      ws.on("error", reject);
      ws.on("message", (data: Buffer) => {
        const frame = z
          .object({ type: z.string(), asset_id: z.string().optional() })
          .parse(JSON.parse(data.toString()));
        if (frame.type === "telemetry" && frame.asset_id) resolve({ asset_id: frame.asset_id });
      });
    });
    const sub = await mqtt.connectAsync(`mqtt://127.0.0.1:${ports.mqtt}`, {
      username: credentials.email,
      password: token,
      reconnectPeriod: 0,
    });
    const mqttTelemetry = new Promise<string>((resolve) =>
      sub.on("message", (topic) => {
        if (topic.endsWith("/agent/telemetry")) resolve(topic);
      }),
    );
    await sub.subscribeAsync(`caudal/v1/${projectId}/#`);

    try {
      const frame = await withDeadline("a WebSocket telemetry frame", deadline, wsTelemetry);
      expect([wellId, tankId]).toContain(frame.asset_id);
      expect(await withDeadline("an MQTT telemetry batch", deadline, mqttTelemetry)).toBe(
        `caudal/v1/${projectId}/agent/telemetry`,
      );
      // Every demo tag reaches the API, on its own asset.
      expect(
        await poll("the well's tags", deadline, async () => {
          const v = await freshVariables(base, token, wellId, startedAt);
          return v.length === 3 ? v : undefined;
        }),
      ).toEqual(["oil_flow_rate", "wellhead_pressure", "wellhead_temperature"]);
      expect(
        await poll("the tank's tag", deadline, async () => {
          const v = await freshVariables(base, token, tankId, startedAt);
          return v.length > 0 ? v : undefined;
        }),
      ).toEqual(["tank_level"]);
    } finally {
      ws.close();
      await sub.endAsync();
    }
    await started.waitFor("== telemetry is flowing", 10_000);

    await stopAndCheck(started, "SIGTERM", [ports.http, ports.mqtt, ports.sim, ports.agent]);
  }, 60_000);

  it("reuses the demo account, project and agent token on a second start, and follows SIM_PORT; SIGINT stops all", async () => {
    const dataDir = join(dir, "data");
    running = startSystem(dir, ports);
    await running.waitFor("== telemetry is flowing", 25_000);
    const first = running.output();
    const firstLogin = readFileSync(join(dataDir, "demo.json"), "utf8");
    const firstAgent = agentFile.parse(
      JSON.parse(readFileSync(join(dataDir, "agent", "agent.json"), "utf8")),
    );
    await stopAndCheck(running, "SIGINT", [ports.http, ports.mqtt, ports.sim, ports.agent], true);
    expect(first).toContain("== demo: account created, agent token issued, configuration v1 deployed");
    // Every program writes plain lines, as the server does; a requested stop is no lost link.
    const firstRun = await allOutput(running);
    for (const name of ["agent", "plc-sim"]) {
      const lines = firstRun.split("\n").filter((l) => l.startsWith(`${name.padEnd(8)}| `));
      expect(lines.length, firstRun).toBeGreaterThan(1);
      for (const line of lines) expect(line).toMatch(/^[a-z-]+ +\| \d\d:\d\d:\d\d (WARN |ERROR )?[^{ ]/);
    }
    expect(firstRun).toMatch(/agent {3}\| \d\d:\d\d:\d\d stopping on SIGINT/);
    expect(firstRun).not.toContain("disconnected from the broker");
    // npm's echo of the Ctrl-C is not a second Ctrl-C: the programs stop in order, none is killed.
    expect(firstRun).not.toContain("== stopping now (killing)");
    expect(firstRun).not.toMatch(/NODE-OPCUA|please wait/);

    // Same data, the simulator on another port: the devices follow it with a new deployment.
    const moved = { ...ports, sim: (await freePorts()).sim };
    const secondStart = Date.now();
    running = startSystem(dir, moved);
    await running.waitFor("== telemetry is flowing", 25_000);
    const second = running.output();
    expect(second).toContain("== demo: account reused, agent token reused, configuration v2 deployed");
    expect(readFileSync(join(dataDir, "demo.json"), "utf8")).toBe(firstLogin);
    const secondAgent = agentFile.parse(
      JSON.parse(readFileSync(join(dataDir, "agent", "agent.json"), "utf8")),
    );
    expect(secondAgent.agent_token).toBe(firstAgent.agent_token);
    expect(secondAgent.project_id).toBe(firstAgent.project_id);
    // The password was shown once, on the first start.
    const password = demoLogin.parse(JSON.parse(firstLogin)).password;
    expect(first).toContain(password);
    expect(second).not.toContain(password);
    expect(second).toContain(`password  in ${join(dataDir, "demo.json")}`);

    const base = `http://127.0.0.1:${ports.http}`;
    const token = await login(base, dataDir);
    const projects = await fetch(`${base}/api/edge/projects`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const names = z.array(z.object({ name: z.string() })).parse(await projects.json());
    expect(names.filter((p) => p.name === "Demo field")).toHaveLength(1);
    const wellId = printedId(second, /well\s+Well DF-1\s+([0-9a-f-]{36})/);
    expect(first).toContain(wellId);
    expect((await freshVariables(base, token, wellId, secondStart)).length).toBeGreaterThan(0);

    await stopAndCheck(running, "SIGINT", [moved.http, moved.mqtt, moved.sim, moved.agent]);
  }, 90_000);

  it("with CAUDAL_DEMO=0 runs the server alone; later it leaves a database with other accounts alone", async () => {
    running = startSystem(dir, ports, { CAUDAL_DEMO: "0" });
    await running.waitFor(BANNER_DONE, 30_000);
    expect(running.output()).toContain("/api/auth/setup/register");
    const base = `http://127.0.0.1:${ports.http}`;
    const register = await fetch(`${base}/api/auth/setup/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "owner@example.com", name: "Owner", password: "owner-password-1" }),
    });
    expect(register.status).toBe(201);
    await stopAndCheck(running, "SIGTERM", [ports.http, ports.mqtt]);

    running = startSystem(dir, ports);
    await running.waitFor(BANNER_DONE, 30_000);
    const out = running.output();
    expect(out).toContain("== the demo is not started: accounts already exist in this database");
    expect(out).not.toContain("agent   |");
    // The server knows an account exists: no first-account instructions.
    expect(out).not.toContain("/api/auth/setup/register");
    expect((await fetch(`${base}/health`)).status).toBe(200);
    await stopAndCheck(running, "SIGTERM", [ports.http, ports.mqtt]);
  }, 60_000);

  it("a second npm start beside a running one refuses in one line, naming PORT and MQTT_PORT", async () => {
    running = startSystem(dir, ports, { CAUDAL_DEMO: "0" });
    await running.waitFor(BANNER_DONE, 30_000);
    const second = startSystem(dir, ports, { CAUDAL_DEMO: "0" });
    expect(await second.exit).toBe(1);
    const lines = (await allOutput(second)).trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(
      `Caudal is already running at http://127.0.0.1:${ports.http} (port ${ports.http} (PORT) is in use)`,
    );
    expect(lines[0]).toContain("PORT=<port> MQTT_PORT=<port> DATA_DIR=<dir> npm start");
    await stopAndCheck(running, "SIGTERM", [ports.http, ports.mqtt]);
  }, 60_000);

  for (const taken of ["http", "mqtt", "sim", "agent"] as const) {
    it(`with the ${taken} port taken by another program, says so in one line, exits non-zero and touches nothing`, async () => {
      // A previous run's files: none of them may change.
      ensureEnvFile(join(dir, ".env"));
      mkdirSync(join(dir, "data", "agent"), { recursive: true });
      writeFileSync(join(dir, "data", "demo.json"), '{"email":"demo@example.com","password":"x"}');
      writeFileSync(join(dir, "data", "agent", "agent.json"), '{"version":1}');
      const before = snapshot(dir);
      await new Promise((resolve) => setTimeout(resolve, 20)); // so that a rewrite would show in mtimes
      const blocker = await holdPort(ports[taken]);
      try {
        running = startSystem(dir, ports);
        expect(await running.exit).toBe(1);
        const lines = running.output().trim().split("\n");
        expect(lines).toHaveLength(1);
        expect(lines[0]).toContain(`port ${ports[taken]} (${PORT_VARIABLE[taken]})`);
        expect(lines[0]).toContain("in use");
        expect(snapshot(dir)).toEqual(before);
        for (const other of Object.values(ports)) {
          if (other !== ports[taken]) expect(await portClosed(other)).toBe(true);
        }
      } finally {
        blocker.close();
      }
    });
  }

  it("with a port taken on a first run, writes no .env and no data directory", async () => {
    const blocker = await holdPort(ports.http);
    try {
      running = startSystem(dir, ports);
      expect(await running.exit).toBe(1);
      expect(running.output()).toContain(`port ${ports.http} (PORT)`);
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      blocker.close();
    }
  });

  it("refuses an invalid SIM_PORT before starting anything", async () => {
    running = startSystem(dir, ports, { SIM_PORT: "not-a-port" });
    expect(await running.exit).toBe(1);
    expect(running.output()).toMatch(/SIM_PORT/);
    expect(await portClosed(ports.http)).toBe(true);
  });
});
