import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CaudalAgent } from "../agent.ts";
import { Pipeline, waitFor } from "../testing/pipeline.ts";
import { Snap7Peer } from "../testing/snap7-server.ts";

type Row = { timestamp: string; readings: { variable: string; value: number }[] };

/** S7 through the whole system (issue 9 §3): API → deployment → agent (nodes7) → snap7 → telemetry. */
describe("S7 end to end against the snap7 server", () => {
  let p: Pipeline;
  let token: string;
  let agent: CaudalAgent;
  let assetId: string;
  const plc = new Snap7Peer();
  const TAGS = [
    { alias: "separator_pressure", address: "DB1,REAL0", data_type: "float32" },
    { alias: "level_raw", address: "DB1,INT4", data_type: "int16" },
    { alias: "gas_total", address: "DB1,DINT6", data_type: "int32" },
    { alias: "dump_valve", address: "DB1,X12.0", data_type: "bool" },
    { alias: "mode", address: "DB1,BYTE14", data_type: "uint16" },
    { alias: "alarm_bit", address: "M10.0", data_type: "bool" },
  ] as const;

  beforeAll(async () => {
    plc.db1.writeFloatBE(245.5, 0);
    plc.db1.writeInt16BE(-12, 4);
    plc.db1.writeInt32BE(987_654, 6);
    plc.db1[12] = 1;
    plc.db1[14] = 3;
    plc.markers[10] = 1;
    plc.publish();
    await plc.start();
    p = await Pipeline.start({ autoDeploy: false });
    token = (await p.t.admin()).token;
    assetId = await p.t.asset(p.projectId, "station");
    const device = await p.t.request<{ id: string }>(`/api/edge/assets/${assetId}/devices`, {
      token,
      body: {
        name: "Separator CPU",
        protocol: "s7",
        host: "127.0.0.1",
        port: plc.port,
        settings: { slot: 1 },
      },
    });
    expect(device.status).toBe(201);
    for (const tag of TAGS) {
      const v = await p.t.request(`/api/edge/devices/${device.body.id}/variables`, {
        token,
        body: { ...tag, poll_interval_ms: 200 },
      });
      expect(v.status).toBe(201);
    }
    agent = p.newAgent();
    await agent.start();
    await p.waitDeployment((await p.deploy()).id);
  });
  afterAll(async () => {
    await agent?.stop();
    await p?.stop();
    plc.stop();
  });

  const latest = async () => {
    const res = await p.t.request<Row[]>(`/api/telemetry/${assetId}?limit=100`, { token });
    expect(res.status).toBe(200);
    const values: Record<string, number> = {};
    for (const row of [...res.body].reverse()) for (const r of row.readings) values[r.variable] = r.value;
    return values;
  };

  it("values of each type arrive in GET /api/telemetry, and a change on the PLC follows", async () => {
    const first = await waitFor("every S7 tag", async () => {
      const v = await latest();
      return TAGS.every((t) => t.alias in v) ? v : undefined;
    });
    expect(first).toEqual({
      separator_pressure: 245.5,
      level_raw: -12,
      gas_total: 987_654,
      dump_valve: 1,
      mode: 3,
      alarm_bit: 1,
    });
    plc.db1.writeFloatBE(251.25, 0);
    plc.publish();
    await waitFor("the new pressure", async () => (await latest()).separator_pressure === 251.25);
  });
});
