import mqtt from "mqtt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { topics } from "../../shared/mqtt/topics.ts";
import { createLogger } from "../logger.ts";
import { createRule, sendTelemetry } from "../testing/fixtures/alarm-fixtures.ts";
import { TestServer } from "../testing/harness.ts";

/** Resolves once one of `lines` matches `pattern`. */
async function lineMatching(lines: string[], pattern: RegExp, ms = 5000): Promise<string> {
  const deadline = Date.now() + ms;
  for (;;) {
    const found = lines.find((l) => pattern.test(l));
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no line matching ${pattern} in:\n${lines.join("")}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("the server's activity lines: alarms, deployments, agents online/offline", () => {
  let t: TestServer;
  const lines: string[] = [];
  beforeAll(async () => {
    t = await TestServer.start({}, { logger: createLogger("info", (l) => lines.push(l), "text") });
  });
  afterAll(async () => t.stop());

  /** A project whose name and asset name the lines should show. */
  async function site() {
    const admin = (await t.admin()).token;
    const name = `Field ${crypto.randomUUID().slice(0, 6)}`;
    const project = await t.request<{ id: string }>("/api/edge/projects", { token: admin, body: { name } });
    const asset = await t.request<{ id: string }>("/api/edge/assets", {
      token: admin,
      body: { project_id: project.body.id, name: `Well ${name}`, asset_type: "well" },
    });
    return { admin, name, projectId: project.body.id, assetId: asset.body.id };
  }

  it("prints an alarm raised and cleared as one short line each, naming the asset", async () => {
    const s = await site();
    await createRule(t, {
      project_id: s.projectId,
      name: "High pressure",
      threshold: 100,
      severity: "critical",
    });
    await sendTelemetry(t, s.assetId, 0, { pressure: 150 });
    const raised = await lineMatching(lines, /alarm raised/);
    expect(raised).toMatch(
      new RegExp(
        `^\\d\\d:\\d\\d:\\d\\d alarm raised \\(critical\\) on Well ${s.name}: High pressure: pressure = 150 \\(> 100\\)\\n$`,
      ),
    );
    await sendTelemetry(t, s.assetId, 1, { pressure: 50 });
    expect(await lineMatching(lines, /alarm cleared/)).toContain(
      `alarm cleared on Well ${s.name}: High pressure`,
    );
  });

  it("prints a deployment", async () => {
    const s = await site();
    const res = await t.request(`/api/edge/projects/${s.projectId}/deploy`, {
      method: "POST",
      token: s.admin,
    });
    expect(res.status).toBe(200);
    expect(await lineMatching(lines, new RegExp(`deployment v1 of ${s.name}`))).toMatch(
      /deployment v1 of .* sent to its agent\n$/,
    );
  });

  it("prints an agent coming online and going offline", async () => {
    const s = await site();
    const issued = await t.request<{ agent_token: string }>(`/api/edge/projects/${s.projectId}/agent-token`, {
      method: "POST",
      token: s.admin,
    });
    expect(issued.status).toBe(201);
    const agent = await mqtt.connectAsync(`mqtt://127.0.0.1:${t.server.broker.port}`, {
      username: `agent:${s.projectId}`,
      password: issued.body.agent_token,
      reconnectPeriod: 0,
    });
    const status = (value: "online" | "offline") =>
      agent.publishAsync(
        topics.status(s.projectId),
        JSON.stringify({ status: value, at: new Date().toISOString() }),
        {
          qos: 1,
          retain: true,
        },
      );
    try {
      await status("online");
      expect(await lineMatching(lines, new RegExp(`agent of ${s.name} is online`))).toMatch(/is online\n$/);
      await status("offline");
      expect(await lineMatching(lines, new RegExp(`agent of ${s.name} is offline`))).toMatch(/is offline\n$/);
    } finally {
      await agent.endAsync();
    }
    // Tokens never reach the console.
    expect(lines.join("")).not.toContain(issued.body.agent_token);
  });
});
