import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  buildPath,
  emptyAgentDist,
  getBuild,
  installerPath,
  type Queued,
  waitForBuild,
} from "../../../testing/fixtures/installer-fixtures.ts";
import { TestServer } from "../../../testing/harness.ts";
import { openProbe } from "../../../testing/table-probe.ts";

/**
 * Builds that cannot succeed, and builds a stopped server left behind (issue 10 §3). With no agent
 * build in AGENT_DIST_DIR every build fails at once, which keeps these tests fast.
 */
describe("installer builds without an agent build, and across a restart", () => {
  let t: TestServer;
  let admin: string;
  beforeAll(async () => {
    t = await TestServer.start({ AGENT_DIST_DIR: emptyAgentDist() });
    admin = (await t.admin()).token;
  });
  afterAll(async () => t.stop());

  it("fails a build with no agent to pack, naming the command; GET …/installer reports it until POST …/build tries again", async () => {
    const project = await t.project();
    const res = await t.request<Queued>(buildPath(project), { method: "POST", token: admin });
    expect(res.status).toBe(202);
    const { build, seen } = await waitForBuild(t, admin, project, res.body.build_id);
    expect(build.status).toBe("failed");
    expect(seen.at(-1)).toBe("failed");
    expect(build.log).toMatch(
      /build started\n.*failed: no Windows agent build in .*: run npm run build:agent\n$/,
    );
    expect(build.finished_at).not.toBeNull();
    expect(build.installer).toBeNull();
    // No enrollment code was issued for an MSI that was never made.
    expect(build.enrollment_code_id).toBeNull();

    // Polling the installer does not start a failing build (nor issue a code) on every poll.
    for (let i = 0; i < 3; i++) {
      const polled = await t.request<Queued>(installerPath(project), { token: admin });
      expect(polled.status).toBe(202);
      expect(polled.body).toEqual({ build_id: build.id, status: "failed" });
      expect(polled.headers.get("retry-after")).toBeNull();
    }
    const retried = await t.request<Queued>(buildPath(project), { method: "POST", token: admin });
    expect(retried.body.build_id).not.toBe(build.id);
    expect(retried.body.status).toBe("queued");
  });

  it("at start, fails a build left running with a clear log line, runs the queued ones, and removes stray files", async () => {
    const [interrupted, waiting] = [await t.project(), await t.project()];
    const ids = { running: randomUUID(), queued: randomUUID() };
    const installers = join(t.dataDir, "installers");
    await t.restart(async () => {
      // What a server killed mid-build leaves: a running build, a queued one, a half-made MSI.
      const db = await openProbe(t.config);
      const insert = (values: unknown[]) =>
        db.probe.run(
          "INSERT INTO installer_builds (id, project_id, status, rebuild, server_url, log, created_at, started_at) VALUES (?, ?, ?, ?, 'http://127.0.0.1', ?, ?, ?)",
          values,
        );
      const now = Date.now();
      await insert([
        ids.running,
        interrupted,
        "running",
        false,
        "2025-01-01T00:00:00.000Z build started\n",
        now,
        now,
      ]);
      await insert([ids.queued, waiting, "queued", false, "", now, null]);
      await db.close();
      mkdirSync(join(installers, `${ids.running}.work`), { recursive: true });
      writeFileSync(join(installers, `${ids.running}.work`, "agent.json"), "{}");
      writeFileSync(join(installers, "left-over.msi"), "x");
    });
    admin = (await t.admin()).token;

    const failed = await getBuild(t, admin, interrupted, ids.running);
    expect(failed.status).toBe("failed");
    expect(failed.log).toContain(
      "failed: the server stopped while this build was running; queue it again with POST …/build",
    );
    expect(failed.finished_at).not.toBeNull();
    const ran = await waitForBuild(t, admin, waiting, ids.queued);
    expect(ran.build.log).toContain("build started");
    expect(existsSync(join(installers, `${ids.running}.work`))).toBe(false);
    expect(existsSync(join(installers, "left-over.msi"))).toBe(false);
  });
});
