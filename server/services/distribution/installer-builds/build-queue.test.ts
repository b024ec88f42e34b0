import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtAgentBinaries } from "../../../../scripts/testing/agent-binaries.ts";
import { wixlMissing } from "../../../../scripts/testing/peers.ts";
import { requirePeer } from "../../../../scripts/testing/require-peer.ts";
import {
  buildPath,
  getBuild,
  installerPath,
  type Queued,
  rebuildPath,
  waitForBuild,
} from "../../../testing/fixtures/installer-fixtures.ts";
import { TestServer } from "../../../testing/harness.ts";
import { tableProbe } from "../../../testing/table-probe.ts";

/**
 * Issue 10, Done when "Build queue": real MSI builds (wixl on the real agent build) through the
 * HTTP API: their states and log, one build at a time per project, the cache, the timeout, and a
 * build cut short by a server stop.
 */
requirePeer("wixl", wixlMissing).describe("the installer build queue", () => {
  let t: TestServer;
  let dist: string;
  let admin: string;
  beforeAll(async () => {
    dist = (await builtAgentBinaries()).dir;
    t = await TestServer.start({ AGENT_DIST_DIR: dist });
    admin = (await t.admin()).token;
  }, 300_000);
  afterAll(async () => t?.stop());

  const post = (path: string) => t.request<Queued>(path, { method: "POST", token: admin });
  const buildsOf = (projectId: string) =>
    tableProbe(t.server).query<{ id: string; status: string }>(
      "SELECT id, status FROM installer_builds WHERE project_id = ? ORDER BY created_at",
      [projectId],
    );

  it("starts one build per project however many ask at once; another project's waits queued; both succeed with a log", async () => {
    const [p1, p2] = [await t.project(), await t.project()];
    const asks = await Promise.all([
      post(buildPath(p1)),
      post(rebuildPath(p1)),
      t.request<Queued>(installerPath(p1), { token: admin }),
      post(buildPath(p1)),
    ]);
    for (const res of asks) {
      expect(res.status).toBe(202);
      expect(res.headers.get("retry-after")).toBe("10");
    }
    const first = asks[0]?.body.build_id;
    expect(asks.map((r) => r.body.build_id)).toEqual([first, first, first, first]);
    expect(await buildsOf(p1)).toHaveLength(1);

    // The worker builds one MSI at a time: p2's waits while p1's runs.
    const other = await post(buildPath(p2));
    expect(other.body.status).toBe("queued");
    expect((await getBuild(t, admin, p1, first ?? "")).status).toBe("running");

    const [one, two] = await Promise.all([
      waitForBuild(t, admin, p1, first ?? ""),
      waitForBuild(t, admin, p2, other.body.build_id),
    ]);
    expect(one.build.status, one.build.log).toBe("succeeded");
    expect(one.seen.at(-1)).toBe("succeeded");
    expect(two.seen).toEqual(["queued", "running", "succeeded"]);
    expect(Date.parse(two.build.started_at ?? "")).toBeGreaterThanOrEqual(
      Date.parse(one.build.finished_at ?? ""),
    );
    expect(two.build.log).toMatch(/build started\n.*enrollment code .* issued/);
    expect(await buildsOf(p1)).toHaveLength(1);
    expect(await buildsOf(p2)).toHaveLength(1);

    // Built: /build answers from the cache and starts nothing; /rebuild ignores the cache.
    const cached = await post(buildPath(p1));
    expect(cached.status).toBe(202);
    expect(cached.body).toEqual({ build_id: first, status: "succeeded" });
    expect(cached.headers.get("retry-after")).toBeNull();
    expect(await buildsOf(p1)).toHaveLength(1);
    const rebuilt = await post(rebuildPath(p1));
    expect(rebuilt.body.build_id).not.toBe(first);
    expect(rebuilt.body.status).toBe("queued");
    const again = await waitForBuild(t, admin, p1, rebuilt.body.build_id);
    expect(again.build.rebuild).toBe(true);
    expect(again.build.log).toContain("rebuild: the cache was not consulted");
    expect(again.build.enrollment_code_id).not.toBe(one.build.enrollment_code_id);
  }, 300_000);

  it("a server stop kills the running wixl and fails its build with the reason in the log", async () => {
    const project = await t.project();
    const queued = await post(buildPath(project));
    const deadline = Date.now() + 60_000;
    while (!(await getBuild(t, admin, project, queued.body.build_id)).log.includes("running wixl")) {
      if (Date.now() > deadline) throw new Error("wixl never started");
      await new Promise((r) => setTimeout(r, 50));
    }
    await t.restart();
    admin = (await t.admin()).token;
    const build = await getBuild(t, admin, project, queued.body.build_id);
    expect(build.status).toBe("failed");
    expect(build.log).toContain("failed: stopped: the server is shutting down");
    expect(build.installer).toBeNull();
  }, 120_000);

  describe("with INSTALLER_BUILD_TIMEOUT_SECONDS=1", () => {
    let slow: TestServer;
    beforeAll(async () => {
      slow = await TestServer.start({ AGENT_DIST_DIR: dist, INSTALLER_BUILD_TIMEOUT_SECONDS: "1" });
    });
    afterAll(async () => slow?.stop());

    it("kills wixl when it takes longer and fails the build, saying so", async () => {
      const token = (await slow.admin()).token;
      const project = await slow.project();
      const res = await slow.request<Queued>(buildPath(project), { method: "POST", token });
      const { build } = await waitForBuild(slow, token, project, res.body.build_id);
      expect(build.status).toBe("failed");
      expect(build.log).toContain("failed: wixl did not finish within 1 s");
      expect(build.installer).toBeNull();
    }, 60_000);
  });
});
