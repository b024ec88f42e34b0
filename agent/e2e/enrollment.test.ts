import { existsSync, readFileSync, statSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WELL_TAGS } from "../../scripts/sim/well-model.ts";
import { agentFileConfigSchema } from "../../shared/mqtt/agent-file-config.ts";
import { ChildAgent, freePort } from "../testing/child-agent.ts";
import { Pipeline, waitFor } from "../testing/pipeline.ts";
import { tokenFilePath } from "../token-file.ts";

type Code = { id: string; code: string };
type Listed = { id: string; status: string };
type Payload = { timestamp: string; readings: { variable: string; value: number }[] };

/**
 * An installed agent holds only a one-time enrollment code (issue 10 §2): as a real process, it
 * trades the code for its token, its readings reach the API, and a second start does not enroll.
 */
describe("caudal-agent enrolls with a one-time code", () => {
  let p: Pipeline;
  let admin: string;
  beforeAll(async () => {
    p = await Pipeline.start({ pollIntervalMs: 100 });
    admin = (await p.t.admin()).token;
  });
  afterAll(async () => p.stop());

  const issue = async (): Promise<Code> => {
    const res = await p.t.request<Code>(`/api/edge/projects/${p.projectId}/enrollment-codes`, {
      method: "POST",
      token: admin,
    });
    expect(res.status).toBe(201);
    return res.body;
  };
  const codes = async () =>
    (await p.t.request<Listed[]>(`/api/edge/projects/${p.projectId}/enrollment-codes`, { token: admin }))
      .body;
  /** What an installer writes: no agent_token, no mqtt_url. */
  const installerConfig = async (dir: string, code: string) =>
    agentFileConfigSchema.parse({
      version: 1,
      server_url: p.t.baseUrl,
      project_id: p.projectId,
      enrollment_code: code,
      data_dir: dir,
      local_api_port: await freePort(),
    });
  const readings = async () => {
    const res = await p.t.request<Payload[]>(`/api/telemetry/${p.assetId}?limit=20`, { token: admin });
    expect(res.status).toBe(200);
    return res.body;
  };

  it("enrolls, its readings reach the API, and a second start keeps its token", async () => {
    const dir = p.agentDir();
    const first = await issue();
    const agent = new ChildAgent(await installerConfig(dir, first.code));
    try {
      await p.deploy();
      await agent.start();
      p.moveWell(50);
      const before = Date.now();
      const fresh = await waitFor("the agent's readings through the API", async () => {
        const latest = (await readings()).find((r) => Date.parse(r.timestamp) >= before);
        return latest && latest.readings.length === WELL_TAGS.length ? latest : undefined;
      });
      expect(fresh.readings.map((r) => r.variable).sort()).toEqual(WELL_TAGS.map((t) => t.alias).sort());

      const file = tokenFilePath(dir);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const stored = JSON.parse(readFileSync(file, "utf8")) as { agent_token: string; mqtt_url: string };
      expect(stored.mqtt_url).toBe(p.mqttUrl);
      const output = agent.lines.join("\n");
      expect(output).not.toContain(stored.agent_token);
      expect(output).not.toContain(first.code);
      expect((await codes()).find((c) => c.id === first.id)?.status).toBe("used");
      expect((await agent.kill("SIGTERM")).code).toBe(0);

      // The installer runs again with a new code: the agent keeps its token and leaves the code unspent.
      const second = await issue();
      const rerun = new ChildAgent(await installerConfig(dir, second.code));
      await rerun.start();
      try {
        expect(rerun.entries().some((e) => e.message.includes("already enrolled"))).toBe(true);
        expect((await codes()).find((c) => c.id === second.id)?.status).toBe("active");
        const restarted = Date.now();
        await waitFor("readings after the second start", async () =>
          (await readings()).find((r) => Date.parse(r.timestamp) >= restarted),
        );
        expect(JSON.parse(readFileSync(file, "utf8"))).toEqual(stored);
      } finally {
        if (rerun.running) await rerun.kill("SIGTERM");
      }
    } finally {
      p.stopWell();
      if (agent.running) await agent.kill("SIGKILL");
    }
  });

  it("a revoked code: the agent exits non-zero, saying why, and stores nothing", async () => {
    const dir = p.agentDir();
    const revoked = await issue();
    const del = await p.t.request(`/api/edge/projects/${p.projectId}/enrollment-codes/${revoked.id}`, {
      method: "DELETE",
      token: admin,
    });
    expect(del.status).toBe(200);
    const agent = new ChildAgent(await installerConfig(dir, revoked.code));
    await expect(agent.start()).rejects.toThrow(
      /caudal-agent: enrollment refused: HTTP 401 EnrollmentCodeRevoked: this enrollment code was revoked/,
    );
    expect(agent.exited).toEqual({ code: 1, signal: null });
    expect(existsSync(tokenFilePath(dir))).toBe(false);
  });
});
