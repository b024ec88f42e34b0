import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentBuildStatus } from "../../../../shared/distribution/agent-build-status.ts";
import { createLogger } from "../../../logger.ts";
import { writeAgentDistFixture } from "../../../testing/agent-dist-fixture.ts";
import { expectError } from "../../../testing/fixtures/field-fixtures.ts";
import { type ApiResponse, TestServer } from "../../../testing/harness.ts";
import { planAgentBuild } from "./build-plan.ts";

/*
 * The server's own build of missing agent executables (issue 28 §3). The real build
 * (scripts/build/agent.ts) takes minutes of CPU, so these tests substitute its command with
 * server/testing/agent-build-stand-in.ts through CaudalServerOptions.agentBuildCommand: the server
 * plans, starts (a real child process, at nice 19, with its real arguments and environment),
 * follows and stops it exactly as the real one; only what the child makes is a stand-in, and the
 * test decides when each executable is made (a file per target in a gate folder).
 */
const STAND_IN = fileURLToPath(new URL("../../../testing/agent-build-stand-in.ts", import.meta.url));

/** A child process's start on a loaded machine: seconds, not expect.poll's default second. */
const SLOW = { timeout: 30_000 };

type Health = { status: string; agent_build?: AgentBuildStatus };
type Report = {
  pid: number;
  nice: number;
  sees_secret: boolean;
  targets: string[];
  stop_with: string | null;
};

async function startBuilding(overrides: Record<string, string> = {}, failAt?: number) {
  const gate = mkdtempSync(join(tmpdir(), "caudal-agent-build-gate-"));
  const lines: string[] = [];
  const t = await TestServer.start(
    { AGENT_BUILD: "auto", ...overrides },
    {
      logger: createLogger("info", (line) => lines.push(line)),
      agentBuildCommand: {
        command: process.execPath,
        args: [STAND_IN, "--gate", gate, ...(failAt ? ["--fail-at", String(failAt)] : [])],
      },
    },
  );
  const admin = (await t.admin()).token;
  const health = async () => (await t.request<Health>("/health")).body.agent_build;
  const report = async () => {
    await expect.poll(() => existsSync(join(gate, "report.json")), SLOW).toBe(true);
    return JSON.parse(readFileSync(join(gate, "report.json"), "utf8")) as Report;
  };
  const release = (i: number) => writeFileSync(join(gate, String(i)), "");
  return { t, admin, health, report, release, lines };
}

const binary = (t: TestServer, arch: string, token: string) =>
  t.request(`/api/edge/agent/linux-binary/${arch}`, { token }) as Promise<ApiResponse>;
const script = (t: TestServer, project: string, token: string) =>
  t.request(`/api/edge/projects/${project}/linux-install`, { token }) as Promise<ApiResponse>;
const msi = (t: TestServer, project: string, token: string) =>
  t.request(`/api/edge/projects/${project}/installer`, { token }) as Promise<ApiResponse>;

describe("the server builds missing agent executables at start", () => {
  let b: Awaited<ReturnType<typeof startBuilding>>;
  let project: string;
  beforeAll(async () => {
    b = await startBuilding();
    project = await b.t.project();
  });
  afterAll(async () => b.t.stop());

  it("in a child process at nice 19, without the server's secrets, with the real build's arguments", async () => {
    const report = await b.report();
    expect(report.nice).toBe(19);
    expect(report.sees_secret).toBe(false);
    // x86_64 and Windows first (npm start's installers), ARM last.
    expect(report.targets).toEqual(planAgentBuild(b.t.config).targets);
    expect(report.targets.slice(0, 2)).toEqual(["linux-x86_64", "windows-x64"]);
    // The build ends itself should this process (the server) be killed: agent-stop-with.test.ts.
    expect(report.stop_with).toBe(String(process.pid));
  });

  it("/health shows it building; installers answer 503 AgentBuilding with Retry-After; each executable is served once made", async () => {
    const { t, admin } = b;
    const total = planAgentBuild(t.config).targets.length;
    await expect.poll(async () => (await b.health())?.step, SLOW).toBe("[1/3] agent-linux-x86_64");
    expect(await b.health()).toMatchObject({
      state: "building",
      built: [],
      progress: { done: 0, total },
      started_at: expect.any(String),
      finished_at: null,
      error: null,
    });
    for (const res of [
      await binary(t, "x86_64", admin),
      await script(t, project, admin),
      await msi(t, project, admin),
    ]) {
      expectError(res, 503, "AgentBuilding");
      expect(res.headers.get("retry-after")).toBe("30");
      expect((res.body as { message: string }).message).toMatch(/^the agent executables are being built: /);
    }
    // No MSI build was queued that could only fail.
    expect(await t.server.store.installerBuilds.latestOf(project)).toBeUndefined();

    b.release(1);
    await expect.poll(async () => (await binary(t, "x86_64", admin)).status, SLOW).toBe(200);
    expect((await script(t, project, admin)).status).toBe(200);
    expect(await b.health()).toMatchObject({
      state: "building",
      built: ["linux-x86_64"],
      progress: { done: 1, total },
    });
    expectError(await msi(t, project, admin), 503, "AgentBuilding");

    b.release(2);
    await expect.poll(async () => (await msi(t, project, admin)).status, SLOW).toBe(202);
    const arm = await binary(t, "aarch64", admin);
    expectError(arm, 503, "AgentBuilding");
    expect(arm.headers.get("retry-after")).toBe("30");

    b.release(3);
    await expect.poll(async () => (await b.health())?.state, SLOW).toBe("ready");
    expect(await b.health()).toMatchObject({
      state: "ready",
      message: null,
      built: ["linux-x86_64", "linux-aarch64", "windows-x64"],
      step: null,
      progress: null,
      finished_at: expect.any(String),
      error: null,
    });
    expect((await binary(t, "aarch64", admin)).status).toBe(200);
  });
});

describe("when the server's build fails", () => {
  let b: Awaited<ReturnType<typeof startBuilding>>;
  beforeAll(async () => {
    b = await startBuilding({}, 1);
  });
  afterAll(async () => b.t.stop());

  it("/health says failed with the build's last line; 503 AgentNotBuilt without Retry-After says what to do", async () => {
    b.release(1);
    await expect.poll(async () => (await b.health())?.state, SLOW).toBe("failed");
    const status = await b.health();
    expect(status?.error).toBe(
      "the build exited with 1: postject: the executable has no SEA fuse (stand-in failure)",
    );
    expect(status?.message).toMatch(
      /^the agent executables are not built: this server's build of the agent executables failed \(.*\)\. See the server's log/,
    );
    const res = await binary(b.t, "x86_64", b.admin);
    expectError(res, 503, "AgentNotBuilt");
    expect(res.headers.get("retry-after")).toBeNull();
    expect((res.body as { message: string }).message).toBe(
      "the x86_64 agent binary is not built: this server's build of the agent executables failed (the build exited with 1: postject: the executable has no SEA fuse (stand-in failure)). See the server's log; restart the server to build again, or an administrator runs npm run build:agent in a checkout of Caudal, with its output in AGENT_DIST_DIR; the executables are served as soon as they are there",
    );
  });
});

describe("when the server cannot build them", () => {
  let t: TestServer;
  let admin: string;
  let project: string;
  beforeAll(async () => {
    t = await TestServer.start({ AGENT_BUILD: "off" });
    admin = (await t.admin()).token;
    project = await t.project();
  });
  afterAll(async () => t.stop());

  it("503 AgentNotBuilt without Retry-After, saying why and what to do; /health unavailable; served once an administrator builds them", async () => {
    for (const res of [await binary(t, "x86_64", admin), await script(t, project, admin)]) {
      expectError(res, 503, "AgentNotBuilt");
      expect(res.headers.get("retry-after")).toBeNull();
      expect((res.body as { message: string }).message).toMatch(
        /is not built on this server, and this server cannot build it: AGENT_BUILD is off\. An administrator runs npm run build:agent/,
      );
    }
    const health = (await t.request<Health>("/health")).body;
    expect(health.status).toBe("ok");
    expect(health.agent_build).toMatchObject({ state: "unavailable", built: [], step: null, progress: null });
    expect(health.agent_build?.message).toContain("AGENT_BUILD is off");

    writeAgentDistFixture(t.config.AGENT_DIST_DIR, { targets: ["linux-x86_64"] });
    expect((await binary(t, "x86_64", admin)).status).toBe(200);
    // What is there is served; the rest cannot be built here, and the message says why.
    const partly = (await t.request<Health>("/health")).body.agent_build;
    expect(partly).toMatchObject({ state: "ready", built: ["linux-x86_64"] });
    expect(partly?.message).toMatch(
      /^the windows-x64 and linux-aarch64 executables are not built on this server, and this server cannot build them: AGENT_BUILD is off/,
    );
  });

  it("an AGENT_DIST_DIR holding other files is not built into", async () => {
    const dir = mkdtempSync(join(tmpdir(), "caudal-foreign-dist-"));
    mkdirSync(join(dir, "photos"));
    const plan = planAgentBuild({ ...t.config, AGENT_BUILD: "auto", AGENT_DIST_DIR: dir });
    expect(plan.targets).toEqual([]);
    expect(plan.cannot["linux-x86_64"]).toMatch(/^AGENT_DIST_DIR holds other files/);
    // Empty, or missing, it is built into.
    const empty = mkdtempSync(join(tmpdir(), "caudal-empty-dist-"));
    for (const d of [empty, join(empty, "not-yet")])
      expect(planAgentBuild({ ...t.config, AGENT_BUILD: "auto", AGENT_DIST_DIR: d }).targets).toContain(
        "linux-x86_64",
      );
  });
});

describe("a server stopped while it builds", () => {
  it("stops the build's process; the next start builds what is still missing", async () => {
    const b = await startBuilding();
    const { pid } = await b.report();
    await b.t.restart();
    expect(() => process.kill(pid, 0)).toThrow();
    // A normal stop is no failure: no warning, and the log says the next start goes on with it.
    const levels = (msg: string) =>
      b.lines.map((l) => JSON.parse(l) as { level: string; msg: string }).filter((l) => l.msg === msg);
    expect(levels("the agent build failed")).toEqual([]);
    expect(levels("the agent build stopped with the server; the next start goes on with it")).toHaveLength(1);
    // Started again, it builds anew (a new stand-in run, its report rewritten).
    await expect.poll(async () => (await b.report()).pid, SLOW).not.toBe(pid);
    expect((await b.health())?.state).toBe("building");
    await b.t.stop();
  });
});
