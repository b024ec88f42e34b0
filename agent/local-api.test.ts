import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
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

describe("the agent's local API address (local_api_host)", () => {
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
