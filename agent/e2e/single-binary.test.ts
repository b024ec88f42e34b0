import { spawnSync } from "node:child_process";
import { linkSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtAgentBinaries } from "../../scripts/testing/agent-binaries.ts";
import { ARM64_SYSROOT, QEMU_AARCH64, qemuAarch64Missing } from "../../scripts/testing/peers.ts";
import { requirePeer } from "../../scripts/testing/require-peer.ts";
import { agentArtifactFile } from "../../shared/distribution/agent-manifest.ts";
import { ChildAgent, freePort } from "./child-agent.ts";
import { Pipeline, waitFor } from "./pipeline.ts";

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

  /** A folder holding only the executable (hard-linked) and an empty bin/ as the whole PATH. */
  function bareInstall(target: "linux-x86_64" | "linux-aarch64"): { exe: string; env: NodeJS.ProcessEnv } {
    const dir = mkdtempSync(join(tmpdir(), "caudal-sea-"));
    dirs.push(dir);
    const exe = join(dir, "caudal-agent");
    linkSync(join(dist, agentArtifactFile(target)), exe);
    mkdirSync(join(dir, "bin"));
    return { exe, env: { PATH: join(dir, "bin"), HOME: dir, LANG: "C.UTF-8" } };
  }

  it("linux-x86_64 runs with no Node and no node_modules, and its readings reach the API", async (ctx) => {
    const { exe, env } = bareInstall("linux-x86_64");
    expect(readdirSync(join(exe, "..")).sort()).toEqual(["bin", "caudal-agent"]);
    const noNode = spawnSync("/bin/sh", ["-c", "command -v node || echo none"], { env, encoding: "utf8" });
    expect(noNode.stdout.trim()).toBe("none");

    const version = spawnSync(exe, ["--version"], { env, encoding: "utf8" });
    expect(version.status).toBe(0);
    expect(version.stdout).toMatch(/^caudal-agent \d+\.\d+\.\d+ \(commit [0-9a-f]{7,}|unknown/);

    const agent = new ChildAgent(p.agentConfig(undefined, { local_api_port: await freePort() }), {
      command: [exe],
      env,
    });
    ctx.onTestFailed(() => console.log(agent.lines.slice(-30).join("\n")));
    const before = p.storedPoints();
    await agent.start();
    try {
      p.moveWell(50);
      await waitFor(
        "readings from the single executable in the API",
        () => p.storedPoints() > before + 10,
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
      const version = spawnSync(command[0] as string, [...command.slice(1), "--version"], {
        env,
        encoding: "utf8",
      });
      expect(version.stderr).toBe("");
      expect(version.stdout).toMatch(/^caudal-agent \d+\.\d+\.\d+ /);

      const agent = new ChildAgent(p.agentConfig(undefined, { local_api_port: await freePort() }), {
        command,
        env,
      });
      ctx.onTestFailed(() => console.log(agent.lines.slice(-30).join("\n")));
      // Emulated: start-up takes seconds, not the native ~0.2 s.
      await agent.start(60_000);
      try {
        p.moveWell(50);
        const values = await waitFor(
          "good readings on the aarch64 agent's local API",
          async () => {
            const s = await agent.status();
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
