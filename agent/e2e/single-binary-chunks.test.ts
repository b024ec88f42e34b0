import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { linkSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OpcUaSeparator } from "../../scripts/sim/opcua-separator.ts";
import { builtAgentBinaries } from "../../scripts/testing/agent-binaries.ts";
import { seedAppliedConfig } from "../../scripts/testing/seed-agent-store.ts";
import { agentArtifactFile } from "../../shared/distribution/agent-manifest.ts";
import type { AgentRuntimeConfig } from "../../shared/mqtt/agent-config.ts";
import { agentFileConfigSchema } from "../../shared/mqtt/agent-file-config.ts";
import { agentVariable } from "../testing/agent-variable.ts";
import { ChildAgent, freePort } from "../testing/child-agent.ts";
import { waitFor } from "../testing/pipeline.ts";

const run = promisify(execFile);

/**
 * node-opcua travels in the x86_64 executable as a separate asset (scripts/build/bundle-agent.ts,
 * SEA_CHUNKS), loaded when an OPC UA device first connects (agent/sea/chunk.ts). Here the
 * executable, with no Node and no node_modules, polls node-opcua's server through that chunk.
 */
describe("single-executable agent: node-opcua loaded from its chunk", () => {
  const peer = new OpcUaSeparator();
  const dirs: string[] = [];
  let exe: string;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    const dist = (await builtAgentBinaries()).dir;
    const dir = mkdtempSync(join(tmpdir(), "caudal-sea-chunk-"));
    dirs.push(dir);
    exe = join(dir, "caudal-agent");
    linkSync(join(dist, agentArtifactFile("linux-x86_64")), exe);
    mkdirSync(join(dir, "bin"));
    env = { PATH: join(dir, "bin"), HOME: dir, LANG: "C.UTF-8" };
    await peer.start(await freePort());
  }, 300_000);
  afterAll(async () => {
    await peer.stop();
    peer.remove();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it("starts with its built-in V8 options and the code cache made under them (V8 would warn on stderr otherwise)", async () => {
    // As systemd/caudal-agent.service runs it: NODE_OPTIONS adds to the built-in options.
    const r = await run(exe, ["--version"], { env: { ...env, NODE_OPTIONS: "--max-semi-space-size=1" } });
    expect(r.stderr).toBe("");
    expect(r.stdout).toMatch(/^caudal-agent /);
  });

  it("reads an OPC UA server's values, from the configuration in its store, with no server of ours", async (ctx) => {
    const dataDir = mkdtempSync(join(tmpdir(), "caudal-sea-chunk-data-"));
    dirs.push(dataDir);
    const projectId = randomUUID();
    const config: AgentRuntimeConfig = {
      project_id: projectId,
      alert_rules: [],
      devices: [
        {
          id: randomUUID(),
          asset_id: randomUUID(),
          name: "Separator",
          protocol: "opc_ua",
          host: "127.0.0.1",
          port: peer.port,
          slave_id: null,
          settings: {
            security_mode: "None",
            endpoint_path: "",
            username: null,
            password: null,
            trust_on_first_use: false,
          },
          variables: [
            agentVariable("pressure", "ns=1;s=Separator.Pressure", "float64", 200),
            agentVariable("level", "ns=1;s=Separator.Level", "float32", 200),
          ],
        },
      ],
    };
    // As after a reboot with the WAN down: the applied configuration is in the agent's store.
    seedAppliedConfig(dataDir, config);
    const agent = new ChildAgent(
      agentFileConfigSchema.parse({
        version: 1,
        mqtt_url: `mqtt://127.0.0.1:${await freePort()}`,
        project_id: projectId,
        agent_token: "cat_single-binary-chunk-test",
        data_dir: dataDir,
        local_api_port: await freePort(),
      }),
      { command: [exe], env },
    );
    ctx.onTestFailed(() => console.log(agent.lines.slice(-30).join("\n")));
    await agent.start();
    try {
      const values = await waitFor(
        "good OPC UA values on the executable's local API",
        async () => {
          const s = await agent.status();
          return (
            s.last_values.length === 2 && s.last_values.every((v) => v.quality === "good") && s.last_values
          );
        },
        30_000,
      );
      expect(Object.fromEntries(values.map((v) => [v.alias, v.value]))).toEqual({
        pressure: peer.values.pressure,
        level: peer.values.level,
      });
    } finally {
      await agent.kill("SIGTERM");
    }
  }, 60_000);
});
