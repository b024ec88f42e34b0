import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TestServer } from "../testing/harness.ts";
import { mustOpen } from "../testing/ws-test-client.ts";

/** The whole path: POST /api/telemetry commits, the ingest emits, the stream delivers. */
describe("live telemetry stream, end to end through POST /api/telemetry", () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await TestServer.start();
  });
  afterAll(async () => t.stop());

  it("delivers an accepted payload to the project's subscribers only", async () => {
    const project = await t.project();
    const elsewhere = await t.project();
    const asset = await t.asset(project);
    const operador = await t.userWithRole("operador", [project]);
    const outsider = await t.userWithRole("operador", [elsewhere]);
    const { token: adminToken } = await t.admin();
    const subscriber = await mustOpen(t.baseUrl, { token: operador.token, project_id: project });
    const superadmin = await mustOpen(t.baseUrl, { token: adminToken });
    const other = await mustOpen(t.baseUrl, { token: outsider.token });

    const timestamp = new Date(Date.now() - 1000).toISOString();
    const posted = await t.request("/api/telemetry", {
      token: operador.token,
      body: {
        asset_id: asset,
        timestamp,
        readings: [
          { variable: "pressure", value: 812.5, unit: "psi" },
          { variable: "temperature", value: 71.25 },
        ],
      },
    });
    expect(posted.status).toBe(201);

    const isOurs = (m: Record<string, unknown>) => m.type === "telemetry" && m.asset_id === asset;
    await subscriber.messages.waitFor(isOurs);
    await superadmin.messages.waitFor(isOurs);
    const delivered = subscriber.messages.all.find(isOurs);
    expect(delivered).toMatchObject({ type: "telemetry", project_id: project, asset_id: asset });
    expect(Date.parse(String(delivered?.timestamp))).toBe(Date.parse(timestamp));
    expect(delivered?.readings).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ variable: "pressure", value: 812.5 }),
        expect.objectContaining({ variable: "temperature", value: 71.25 }),
      ]),
    );
    // The outsider's stream stays silent: an event for its own project proves it is live.
    t.server.context.events.emit("telemetry", {
      source: "http",
      series: [
        { projectId: elsewhere, assetId: asset, variable: "marker", points: [[Date.parse(timestamp), 1]] },
      ],
    });
    await other.messages.waitFor((m) => m.type === "telemetry");
    expect(other.messages.all.map((m) => m.project_id)).toEqual([elsewhere]);
    for (const { ws } of [subscriber, superadmin, other]) ws.close();
  });
});
