import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import mqtt from "mqtt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { z } from "zod";
import {
  childPids,
  freePorts,
  isRunning,
  type Ports,
  portClosed,
  type Started,
  startSystem,
} from "./start-fixture.ts";

const README = fileURLToPath(new URL("../../README.md", import.meta.url));

/** Runs `command` in bash (with $TOKEN set) until it prints a first line or ends; that output. */
function firstLine(
  command: string,
  token: string,
  ms = 15_000,
): Promise<{ line: string; code: number | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["-c", command], {
      env: { PATH: process.env.PATH, TOKEN: token },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    let out = "";
    let err = "";
    const stop = () => {
      try {
        process.kill(-(child.pid ?? 0), "SIGKILL");
      } catch {
        // already ended
      }
    };
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`no output from: ${command}\n${err}`));
    }, ms);
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes("\n")) {
        clearTimeout(timer);
        stop();
        resolve({ line: out.split("\n")[0] ?? "", code: null });
      }
    });
    child.stderr.on("data", (chunk: Buffer) => {
      err += chunk.toString();
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve({ line: out.split("\n")[0] ?? "", code });
    });
  });
}

/** The banner's shell commands, continuation lines joined ("e.g." dropped). */
function bannerCommands(banner: string): string[] {
  return banner
    .replace(/ \\\n\s*/g, " ")
    .split("\n")
    .map((l) => l.trim().replace(/^e\.g\. /, ""))
    .filter((l) => /^(TOKEN=|curl |mosquitto_sub |\/\S+\/node )/.test(l));
}

/** Size, mtime and content hash of each file, to prove that nothing was rewritten. */
function fingerprint(paths: string[]): string[] {
  return paths.map((p) => {
    const stat = statSync(p);
    return `${p} ${stat.mtimeMs} ${stat.size} ${createHash("sha256").update(readFileSync(p)).digest("hex")}`;
  });
}

async function expect2xx(url: string): Promise<void> {
  const res = await fetch(url);
  await res.body?.cancel();
  expect(res.status >= 200 && res.status < 300, `${url} answered ${res.status}`).toBe(true);
}

/**
 * Issue 8 §6, on one running system (one start is costly): what a person first sees of
 * `npm start` must be true and usable, and stopping it must be orderly. The tests run in order;
 * the last one stops the system.
 */
describe("first contact with npm start", () => {
  let dir: string;
  let ports: Ports;
  let running: Started;
  let banner: string;
  let base: string;
  let dataDir: string;
  let token: string;
  let projectId: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "caudal-first-contact-"));
    ports = await freePorts();
    running = startSystem(dir, ports, { LOG_LEVEL: "info" });
    await running.waitFor("== telemetry is flowing", 40_000);
    const out = running.output();
    banner = out.slice(out.indexOf("Caudal is running"), out.indexOf("Press Ctrl-C to stop."));
    base = `http://127.0.0.1:${ports.http}`;
    dataDir = join(dir, "data");
    projectId = z
      .object({ project_id: z.string() })
      .parse(JSON.parse(readFileSync(join(dataDir, "agent", "agent.json"), "utf8"))).project_id;
    const login = await fetch(`${base}/api/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: readFileSync(join(dataDir, "demo.json")),
    });
    token = z.object({ token: z.string() }).parse(await login.json()).token;
  }, 60_000);

  afterAll(async () => {
    if (running.child.exitCode === null) {
      for (const child of childPids(running.child.pid ?? 0)) process.kill(child, "SIGKILL");
      running.child.kill("SIGKILL");
      await running.exit;
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it("every URL the banner prints answers 2xx", async () => {
    // The address block (the commands further down are run by the next test).
    const addresses = banner.split("\n\n")[0] ?? "";
    const urls = [...new Set(addresses.match(/https?:\/\/[^\s'"()]+/g) ?? [])];
    expect(urls).toEqual(
      expect.arrayContaining([
        `${base}/docs`,
        `${base}/health`,
        `${base}/metrics`,
        `${base}/docs/openapi.yaml`,
      ]),
    );
    for (const url of urls) await expect2xx(url);
    // "Agent page  http://127.0.0.1:PORT/ (its local API: /status, also /health, /alarms, /metrics)"
    const agentPaths = /\(its local API: ([^,]+), also ([^)]+)\)/.exec(banner);
    expect(agentPaths).not.toBeNull();
    for (const path of ["/", agentPaths?.[1] ?? "", ...(agentPaths?.[2] ?? "").split(", ")])
      await expect2xx(`http://127.0.0.1:${ports.agent}${path}`);
  });

  it("every command the banner prints works: log in, REST, WebSocket, MQTT", async () => {
    const commands = bannerCommands(banner);
    expect(commands.map((c) => c.split(" ")[0]?.replace(/^.*\//, ""))).toEqual([
      "TOKEN=$(curl",
      "curl",
      "node",
      "mosquitto_sub",
    ]);
    const [loginCommand = "", ...watch] = commands;
    const printed = await firstLine(`${loginCommand}\nprintf '%s\\n' "$TOKEN"`, "");
    expect(printed.line).toMatch(/^eyJ/);
    for (const command of watch) {
      const { line } = await firstLine(command, printed.line);
      expect(line, command).not.toBe("");
      expect(line, command).not.toMatch(/error|denied|refused/i);
    }
  });

  it("every URL and command README.md gives for a running system answers", async () => {
    const readme = readFileSync(README, "utf8");
    // The defaults the README uses, mapped to this run's ports.
    const toRun = (text: string) =>
      text
        .replaceAll("localhost:8080", `127.0.0.1:${ports.http}`)
        .replaceAll("127.0.0.1:8081", `127.0.0.1:${ports.agent}`)
        .replaceAll("-p 1883", `-p ${ports.mqtt}`)
        .replaceAll("<project_id>", projectId)
        .replaceAll("@data/", `@${dataDir}/`)
        .replaceAll("…/api", `${base}/api`);
    const urls = [
      ...new Set(readme.match(/\b(?:https?|wss?):\/\/(?:localhost:8080|127\.0\.0\.1:8081)[^\s`'")|]*/g)),
    ];
    expect(urls.length).toBeGreaterThan(1);
    for (const url of urls.map(toRun)) {
      if (url.startsWith("ws")) {
        const ws = new WebSocket(url.replace("token=…", `token=${token}`));
        const frame = await new Promise<string>((resolve, reject) => {
          ws.once("message", (data: Buffer) => resolve(data.toString()));
          ws.once("error", reject);
          ws.once("close", (code) => reject(new Error(`${url} closed: ${code}`)));
        });
        ws.close();
        expect(frame).toContain('"type"');
      } else {
        await expect2xx(url);
      }
    }
    // The root endpoints table.
    const section = readme.slice(readme.indexOf("| Path | What |"), readme.indexOf("## Architecture"));
    // The first cell of each row: the prose after the table names `/api` as a prefix, not a page.
    const pathCells = section
      .split("\n")
      .filter((line) => line.startsWith("| `"))
      .map((line) => line.split(" | ")[0])
      .join("\n");
    const paths = [...new Set(pathCells.match(/`(?:GET )?(\/[a-z./]*)`/g) ?? [])].map((p) =>
      p.replace(/`|GET /g, ""),
    );
    expect(paths).toEqual(["/health", "/metrics", "/", "/docs", "/docs/openapi.yaml", "/docs/openapi.json"]);
    for (const path of paths) await expect2xx(`${base}${path}`);
    // /health's services are as documented.
    const health = z
      .object({ services: z.record(z.string(), z.unknown()) })
      .parse(await (await fetch(`${base}/health`)).json());
    const documented = /services: \{([a-z, ]+)\}/.exec(section)?.[1]?.split(", ") ?? [];
    expect(documented.sort()).toEqual(Object.keys(health.services).sort());
    // The commands: log in with the demo file, follow the agent's MQTT traffic.
    // Whole commands for the running system: not a flag quoted in prose (`curl -C -`), not one
    // elided with "…" (`mosquitto_sub … -t 'caudal/uns/<slug>/#' -v`).
    const commands =
      readme
        .match(/`((?:curl|mosquitto_sub) [^`]+)`/g)
        ?.map((c) => toRun(c.slice(1, -1)))
        .filter((c) => !c.includes("…") && (c.startsWith("mosquitto_sub") || c.includes("/api/"))) ?? [];
    expect(commands).toHaveLength(2);
    for (const command of commands) {
      const { line } = await firstLine(command, token);
      expect(line, command).not.toBe("");
      expect(line, command).not.toMatch(/error/i);
    }
  });

  it("shows alarms, deployments and agents as short lines; request lines go to DATA_DIR/logs/", async () => {
    const out = running.output();
    expect(out).not.toContain('"msg":"request"');
    expect(out).toMatch(/server {2}\| \d\d:\d\d:\d\d deployment v1 of Demo field sent to its agent\n/);
    expect(out).toMatch(/server {2}\| \d\d:\d\d:\d\d agent of Demo field is online\n/);
    const well = /well\s+Well DF-1\s+([0-9a-f-]{36})/.exec(out)?.[1] ?? "";
    const send = async (value: number) => {
      const res = await fetch(`${base}/api/telemetry`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({
          asset_id: well,
          timestamp: new Date().toISOString(),
          readings: [{ variable: "wellhead_pressure", value }],
        }),
      });
      expect(res.status).toBe(201);
    };
    await send(2000);
    await running.waitFor(
      /server {2}\| \d\d:\d\d:\d\d alarm raised \(warning\) on Well DF-1: .*wellhead_pressure = 2000/,
      5000,
    );
    await send(10);
    await running.waitFor(/server {2}\| \d\d:\d\d:\d\d alarm cleared on Well DF-1: /, 5000);
    const requests = readFileSync(join(dataDir, "logs", "requests.log"), "utf8");
    expect(requests).toContain('"msg":"request"');
    expect(requests).toContain('"path":"/api/telemetry"');
    expect(requests).not.toContain(token);
  });

  it("a second npm start while this one runs says so in one line, exits non-zero and touches nothing", async () => {
    const files = [join(dir, ".env"), join(dataDir, "agent", "agent.json"), join(dataDir, "demo.json")];
    const before = fingerprint(files);
    const second = startSystem(dir, ports);
    expect(await second.exit).toBe(1);
    const lines = second.output().trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`Caudal is already running at http://127.0.0.1:${ports.http}`);
    expect(fingerprint(files)).toEqual(before);
    // The first one is unharmed.
    await expect2xx(`${base}/health`);
    expect(running.child.exitCode).toBeNull();
  });

  it("a closed terminal (SIGHUP) stops everything in order: exit 0, agent offline, no WAL left", async () => {
    const observer = await mqtt.connectAsync(`mqtt://127.0.0.1:${ports.mqtt}`, {
      username: "demo@example.com",
      password: token,
      reconnectPeriod: 0,
    });
    const statuses: string[] = [];
    observer.on("message", (_topic, payload) => statuses.push(payload.toString()));
    await observer.subscribeAsync(`caudal/v1/${projectId}/agent/status`, { qos: 1 });
    const children = childPids(running.child.pid ?? 0);
    expect(children).toHaveLength(3);
    try {
      running.child.kill("SIGHUP");
      expect(await running.exit).toBe(0);
    } finally {
      await observer.endAsync(true);
    }
    expect(statuses.some((s) => JSON.parse(s).status === "offline")).toBe(true);
    expect(running.output()).toMatch(/server {2}\| \d\d:\d\d:\d\d agent of Demo field is offline\n/);
    for (const child of children) expect(isRunning(child), `child ${child} still runs`).toBe(false);
    for (const port of Object.values(ports)) expect(await portClosed(port)).toBe(true);
    expect(existsSync(join(dataDir, "caudal.db-wal"))).toBe(false);
    expect(existsSync(join(dataDir, "agent", "agent.db-wal"))).toBe(false);
  });
});
