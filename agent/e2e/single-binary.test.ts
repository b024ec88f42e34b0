import { execFile, spawnSync } from "node:child_process";
import { linkSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtAgentBinaries } from "../../scripts/testing/agent-binaries.ts";
import { ARM64_SYSROOT, QEMU_AARCH64, qemuAarch64Missing } from "../../scripts/testing/peers.ts";
import { requirePeer } from "../../scripts/testing/require-peer.ts";
import { agentArtifactFile } from "../../shared/distribution/agent-manifest.ts";
import { type AgentFileConfig, agentFileConfigSchema } from "../../shared/mqtt/agent-file-config.ts";
import { ChildAgent, freePort } from "../testing/child-agent.ts";
import { Pipeline, waitFor } from "../testing/pipeline.ts";

const run = promisify(execFile);
const qemu = requirePeer("qemu-user-static (arm64)", qemuAarch64Missing);

/**
 * The agent as shipped: the single executables of `npm run build:agent`, run where there is no
 * Node and no node_modules, polling a Modbus simulator and syncing with a real server.
 */
describe("single-executable agent", () => {
  let dist: string;
  let p: Pipeline;
  const dirs: string[] = [];
  beforeAll(async () => {
    dist = (await builtAgentBinaries()).dir;
    p = await Pipeline.start({ pollIntervalMs: 200 });
  }, 300_000);
  afterAll(async () => {
    await p?.stop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  /**
   * What the installers write: the server, the project and a one-time code; no token, no broker
   * URL. Each enrollment replaces the project's agent token, so each agent here enrolls.
   */
  async function installerConfig(): Promise<AgentFileConfig> {
    const { token } = await p.t.admin();
    const issued = await p.t.request<{ code: string }>(`/api/edge/projects/${p.projectId}/enrollment-codes`, {
      method: "POST",
      token,
    });
    expect(issued.status).toBe(201);
    const dataDir = mkdtempSync(join(tmpdir(), "caudal-sea-data-"));
    dirs.push(dataDir);
    return agentFileConfigSchema.parse({
      version: 1,
      server_url: p.t.baseUrl,
      project_id: p.projectId,
      enrollment_code: issued.body.code,
      data_dir: dataDir,
      local_api_port: await freePort(),
    });
  }

  /** A folder holding only the executable (hard-linked) and an empty bin/ as the whole PATH. */
  function bareInstall(target: "linux-x86_64" | "linux-aarch64"): { exe: string; env: NodeJS.ProcessEnv } {
    const dir = mkdtempSync(join(tmpdir(), "caudal-sea-"));
    dirs.push(dir);
    const exe = join(dir, "caudal-agent");
    linkSync(join(dist, agentArtifactFile(target)), exe);
    mkdirSync(join(dir, "bin"));
    return { exe, env: { PATH: join(dir, "bin"), HOME: dir, LANG: "C.UTF-8" } };
  }

  it("linux-x86_64 runs with no Node and no node_modules, enrolls with a one-time code, and its readings reach the API", async (ctx) => {
    const { exe, env } = bareInstall("linux-x86_64");
    expect(readdirSync(join(exe, "..")).sort()).toEqual(["bin", "caudal-agent"]);
    const noNode = spawnSync("/bin/sh", ["-c", "command -v node || echo none"], { env, encoding: "utf8" });
    expect(noNode.stdout.trim()).toBe("none");

    const version = await run(exe, ["--version"], { env, encoding: "utf8" });
    expect(version.stdout).toMatch(
      /^caudal-agent \d+\.\d+\.\d+ \(commit ([0-9a-f]{12}|unknown), node 24\.21\.0\)\n$/,
    );

    const config = await installerConfig();
    const configFile = join(config.data_dir, "check.json");
    writeFileSync(configFile, JSON.stringify(config));
    const checked = await run(exe, ["--check-config", configFile], { env, encoding: "utf8" });
    expect(checked.stdout).toBe(
      `${configFile}: valid (project ${p.projectId}, data dir ${config.data_dir})\n`,
    );
    writeFileSync(configFile, JSON.stringify({ ...config, project_id: "not-a-uuid", server_url: undefined }));
    const refused = await run(exe, ["--check-config", configFile], { env, encoding: "utf8" }).catch((e) => e);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("project_id: ");
    expect(refused.stderr).toContain("server_url");

    const agent = new ChildAgent(config, { command: [exe], env });
    ctx.onTestFailed(() => console.log(agent.lines.slice(-30).join("\n")));
    const before = await p.storedPoints();
    await agent.start();
    const { token } = await p.t.admin();
    const codes = await p.t.request<{ status: string }[]>(
      `/api/edge/projects/${p.projectId}/enrollment-codes`,
      {
        token,
      },
    );
    expect(codes.body.map((c) => c.status)).toContain("used");
    // The local page travels inside the executable: no esbuild and no files beside it here.
    const local = `http://127.0.0.1:${config.local_api_port}`;
    const page = await fetch(`${local}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<script type="module" src="/assets/main.js">');
    const script = await fetch(`${local}/assets/main.js`);
    expect(script.status).toBe(200);
    expect(await script.text()).toContain('"/status"');
    try {
      p.moveWell(50);
      await waitFor(
        "readings from the single executable in the API",
        async () => (await p.storedPoints()) > before + 10,
        30_000,
      );
    } finally {
      p.stopWell();
      await agent.kill("SIGTERM");
    }
  }, 60_000);

  qemu.it(
    "linux-aarch64 prints its version and polls a Modbus simulator under qemu",
    async (ctx) => {
      const { exe, env } = bareInstall("linux-aarch64");
      const command = [QEMU_AARCH64, "-L", ARM64_SYSROOT, exe];
      // Not spawnSync: this process also runs the test server, whose keep-alive sockets a blocked
      // event loop would leave to be reset under the next request.
      const version = await run(command[0] as string, [...command.slice(1), "--version"], {
        env,
        encoding: "utf8",
      });
      expect(version.stderr).toBe("");
      expect(version.stdout).toMatch(/^caudal-agent \d+\.\d+\.\d+ /);

      const agent = new ChildAgent(await installerConfig(), { command, env });
      ctx.onTestFailed(() => console.log(agent.lines.slice(-30).join("\n")));
      // Emulated: start-up takes seconds, not the native ~0.2 s.
      await agent.start(60_000);
      try {
        p.moveWell(50);
        const values = await waitFor(
          "good readings on the aarch64 agent's local API",
          async () => {
            if (!agent.running) throw new Error(`the agent exited: ${JSON.stringify(agent.exited)}`);
            // Emulated, the local API can be slow to answer its first requests: ask again.
            const s = await agent.status().catch(() => null);
            if (!s) return false;
            return (
              s.last_values.length > 0 && s.last_values.every((v) => v.quality === "good") && s.last_values
            );
          },
          60_000,
        );
        expect(values.map((v) => v.value)).not.toContain(null);
      } finally {
        p.stopWell();
        await agent.kill("SIGTERM");
      }
    },
    150_000,
  );
});
