import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Pipeline, waitFor } from "../testing/pipeline.ts";

describe("edge pipeline: PLC → agent → MQTT → server", () => {
  let p: Pipeline;
  beforeAll(async () => {
    p = await Pipeline.start();
  });
  afterAll(async () => p.stop());

  it("deploys, polls the simulator and lands telemetry in the API", async () => {
    const agent = p.newAgent();
    await agent.start();
    try {
      const deployment = await p.deploy();
      const { token } = await p.t.admin();
      await waitFor("deployment applied", async () => {
        const res = await p.t.request<{ id: string; status: string }[]>(
          `/api/edge/projects/${p.projectId}/deployments`,
          { token },
        );
        return res.body.find((d) => d.id === deployment.id && d.status === "applied");
      });
      const latest = await waitFor("telemetry", async () => {
        const res = await p.t.request<{ readings: { variable: string; value: number }[] }[]>(
          `/api/telemetry/${p.assetId}?limit=5`,
          { token },
        );
        return res.status === 200 && res.body.length > 0 ? res.body : undefined;
      });
      const pressure = latest[0]?.readings.find((r) => r.variable === "wellhead_pressure");
      expect(pressure?.value).toBeGreaterThan(1300);
      expect(pressure?.value).toBeLessThan(1600);
      await waitFor("health online", async () => {
        const res = await p.t.request<{ status: string }>(`/api/edge/agents/${p.projectId}/health`, {
          token,
        });
        return res.status === 200 && res.body.status === "online";
      });
    } finally {
      await agent.stop();
    }
  });
});
