import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { OWN_FILES_PAGE_CSP } from "../shared/content-security-policy.ts";
import { agentFileConfigSchema, configuredRunConfig } from "../shared/mqtt/agent-file-config.ts";
import { CaudalAgent } from "./agent.ts";
import { AgentLog } from "./agent-log.ts";

/** Whether a TCP connection to host:port is accepted. */
function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

const dirs: string[] = [];
const agents: CaudalAgent[] = [];
afterEach(async () => {
  for (const agent of agents.splice(0)) await agent.stop();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function startAgent(extra: Record<string, unknown>): Promise<CaudalAgent> {
  const dir = mkdtempSync(join(tmpdir(), "caudal-local-api-"));
  dirs.push(dir);
  const config = agentFileConfigSchema.parse({
    version: 1,
    // No broker: the local API serves while the server is out of reach.
    mqtt_url: "mqtt://127.0.0.1:1",
    project_id: randomUUID(),
    agent_token: "cat_local-api-test-token",
    data_dir: dir,
    local_api_port: 0,
    ...extra,
  });
  const agent = new CaudalAgent(configuredRunConfig(config), { log: new AgentLog({ write: () => {} }) });
  agents.push(agent);
  await agent.start();
  return agent;
}

describe("the agent's local API address (local_api_host)", () => {
  it("listens on 127.0.0.1 only by default: another address of this machine is refused", async () => {
    const agent = await startAgent({});
    const port = agent.localApiPort;
    expect(await accepts("127.0.0.1", port)).toBe(true);
    // 127.0.0.2 is this machine too (127.0.0.0/8 is loopback), but not the address bound.
    expect(await accepts("127.0.0.2", port)).toBe(false);
    const res = await fetch(`http://127.0.0.1:${port}/health`);
    expect(res.status).toBe(200);
  });

  it("listens where local_api_host says (0.0.0.0: every interface)", async () => {
    const agent = await startAgent({ local_api_host: "0.0.0.0" });
    expect(await accepts("127.0.0.2", agent.localApiPort)).toBe(true);
  });

  it("rejects an empty local_api_host", () => {
    const result = agentFileConfigSchema.safeParse({
      version: 1,
      mqtt_url: "mqtt://127.0.0.1:1",
      project_id: randomUUID(),
      agent_token: "cat_local-api-test-token",
      data_dir: "/tmp",
      local_api_host: "",
    });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(["local_api_host"]);
  });
});

/** GET `path` from the agent's local API with the given Host header (real HTTP, node:http). */
function getWithHost(
  port: number,
  host: string,
  path = "/status",
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, headers: { host } }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        body += chunk;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.once("error", reject);
    req.end();
  });
}

describe("the agent's local API and DNS rebinding (the Host header)", () => {
  it("answers requests that name it by IP address or localhost, and refuses other host names", async () => {
    const agent = await startAgent({ local_api_hostnames: ["RTU-7.field.local"] });
    const port = agent.localApiPort;
    for (const host of [
      `127.0.0.1:${port}`,
      "127.0.0.1",
      `localhost:${port}`,
      `[::1]:${port}`,
      "rtu-7.field.local",
    ])
      expect((await getWithHost(port, host)).status, host).toBe(200);
    for (const host of [`attacker.example:${port}`, "127.0.0.1.attacker.example", "field.local"]) {
      const refused = await getWithHost(port, host, "/");
      expect(refused.status, host).toBe(403);
      expect(JSON.parse(refused.body)).toMatchObject({
        error: "Forbidden",
        message: expect.stringContaining("local_api_hostnames"),
      });
    }
  });

  it("rejects a local_api_hostnames entry that is not a host name", () => {
    const result = agentFileConfigSchema.safeParse({
      version: 1,
      mqtt_url: "mqtt://127.0.0.1:1",
      project_id: randomUUID(),
      agent_token: "cat_local-api-test-token",
      data_dir: "/tmp",
      local_api_hostnames: ["http://rtu-7/"],
    });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(["local_api_hostnames", 0]);
  });
});

describe("the agent's local page at /", () => {
  it("serves the page and its files from the agent itself, under a strict CSP", async () => {
    const agent = await startAgent({});
    const base = `http://127.0.0.1:${agent.localApiPort}`;
    const page = await fetch(`${base}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(page.headers.get("content-security-policy")).toBe(OWN_FILES_PAGE_CSP);
    expect(page.headers.get("x-content-type-options")).toBe("nosniff");
    const html = await page.text();
    // Every script is a file of this origin: none inline, none elsewhere.
    const scripts = [...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
    expect(scripts).toEqual(['<script type="module" src="/assets/main.js">']);
    const linked = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(linked.sort()).toEqual(["/assets/icon.svg", "/assets/main.js", "/assets/page.css"]);

    const types: Record<string, string> = {
      "/assets/main.js": "text/javascript; charset=utf-8",
      "/assets/page.css": "text/css; charset=utf-8",
      "/assets/icon.svg": "image/svg+xml",
    };
    for (const [path, type] of Object.entries(types)) {
      const res = await fetch(`${base}${path}`);
      expect(res.status, path).toBe(200);
      expect(res.headers.get("content-type"), path).toBe(type);
      expect((await res.text()).length, path).toBeGreaterThan(100);
    }
    // The page asks the agent for /status and /alarms, by path: its own origin.
    const script = await (await fetch(`${base}/assets/main.js`)).text();
    expect(script).toContain('"/status"');
    expect(script).toContain('"/alarms"');
  });

  it("answers 404 for a file the page does not have, and 405 for anything but GET", async () => {
    const agent = await startAgent({});
    const base = `http://127.0.0.1:${agent.localApiPort}`;
    const missing = await fetch(`${base}/assets/other.js`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({
      error: "NotFound",
      message: "the local page has no file /assets/other.js",
    });
    const post = await fetch(`${base}/`, { method: "POST", body: "{}" });
    expect(post.status).toBe(405);
    expect(await post.json()).toEqual({ error: "MethodNotAllowed", message: "the local API is read-only" });
  });
});
