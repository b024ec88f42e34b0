import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RESPONSES, STATIC_RESPONSES } from "../../agent/drivers/dnp3/test-vectors.ts";
import { SilentPeer } from "../../scripts/sim/black-hole.ts";
import { ScriptedOutstation } from "../../scripts/sim/dnp3-outstation.ts";
import type { CaudalAgent } from "../agent.ts";
import { Pipeline, sleep, waitFor } from "../testing/pipeline.ts";

const OUTSTATION = 1024;
const MASTER = 1;

type Reading = { variable: string; value: number };
type Row = { timestamp: string; readings: Reading[] };

/**
 * DNP3 through the whole system (issue 9 §4): a device deployed from the API, polled by the
 * agent's DNP3 master against the scripted outstation (recorded opendnp3 responses), its values
 * in GET /api/telemetry. Beside it, the Modbus well of the pipeline and a dead DNP3 device (a
 * peer that accepts TCP and never answers): the dead one must not slow the others.
 */
describe("DNP3 end to end: API → deployment → agent → outstation → telemetry", () => {
  let p: Pipeline;
  let token: string;
  let agent: CaudalAgent;
  let sim: ScriptedOutstation;
  let dead: SilentPeer;
  let stationId: string;

  const readings = async (assetId: string, limit = 100): Promise<Row[]> => {
    const res = await p.t.request<Row[]>(`/api/telemetry/${assetId}?limit=${limit}`, { token });
    expect(res.status).toBe(200);
    return res.body;
  };
  const latest = async (assetId: string, variable: string) => {
    for (const row of await readings(assetId)) {
      const r = row.readings.find((x) => x.variable === variable);
      if (r) return r.value;
    }
    return undefined;
  };
  const dnp3Device = async (assetId: string, name: string, port: number) => {
    const res = await p.t.request<{ id: string }>(`/api/edge/assets/${assetId}/devices`, {
      token,
      body: {
        name,
        protocol: "dnp3",
        host: "127.0.0.1",
        port,
        slave_id: OUTSTATION,
        settings: { master_address: MASTER, integrity_poll_interval_ms: 60_000 },
      },
    });
    expect(res.status).toBe(201);
    return res.body.id;
  };
  const variable = async (deviceId: string, alias: string, address: string) => {
    const res = await p.t.request(`/api/edge/devices/${deviceId}/variables`, {
      token,
      body: { alias, data_type: "float32", address, poll_interval_ms: 200 },
    });
    expect(res.status).toBe(201);
  };

  beforeAll(async () => {
    p = await Pipeline.start({ pollIntervalMs: 200, autoDeploy: false });
    token = (await p.t.admin()).token;
    sim = new ScriptedOutstation({
      address: OUTSTATION,
      masterAddress: MASTER,
      integrity: [STATIC_RESPONSES.g30v5.apdu],
    });
    await sim.listen(0);
    dead = new SilentPeer();
    await dead.listen();

    stationId = await p.t.asset(p.projectId, "station");
    const rtu = await dnp3Device(stationId, "Station RTU", sim.port);
    await variable(rtu, "line_pressure", "g30:0");
    await variable(rtu, "meter_total", "g30:23");
    await variable(rtu, "pump_running", "g1:16");
    const deadAsset = await p.t.asset(p.projectId, "station");
    const silent = await dnp3Device(deadAsset, "Unreachable RTU", dead.port);
    await variable(silent, "line_pressure", "g30:0");

    agent = p.newAgent();
    await agent.start();
    await p.waitDeployment((await p.deploy()).id);
  });
  afterAll(async () => {
    await agent?.stop();
    await sim?.close();
    await dead?.close();
    await p?.stop();
  });

  it("class 0: the integrity poll's value arrives in GET /api/telemetry", async () => {
    const value = await waitFor("line_pressure from the integrity poll", () =>
      latest(stationId, "line_pressure"),
    );
    expect(value).toBeCloseTo(STATIC_RESPONSES.g30v5.value, 3);
  });

  it("event polls: a class 1 response (g32, g2) updates its points", async () => {
    sim.events.push([RESPONSES.class1Soe]);
    // g32v1 index 0x17 = 0x1234 then 0x2222: the newest event wins; g2v1 index 0x10 = on.
    await waitFor("the class 1 events", async () => (await latest(stationId, "meter_total")) === 0x2222);
    expect(await latest(stationId, "pump_running")).toBe(1);
    const eventReads = sim.requests.filter((r) => r.classes.length > 0 && !r.classes.includes(0));
    expect(eventReads.length).toBeGreaterThan(0);
  });

  it("a restart IIN leads to clear-restart and an integrity poll, whose new value arrives", async () => {
    const before = sim.requests.length;
    sim.integrity = [STATIC_RESPONSES.g30v2.apdu];
    sim.restart();
    await waitFor("line_pressure after the restart", async () => {
      return (await latest(stationId, "line_pressure")) === STATIC_RESPONSES.g30v2.value;
    });
    const after = sim.requests.slice(before);
    const clear = after.findIndex((r) => r.clearsRestart);
    expect(clear).toBeGreaterThanOrEqual(0);
    expect(after.slice(clear + 1).some((r) => r.classes.includes(0))).toBe(true);
  });

  it("a dead DNP3 device does not slow the live devices beside it", async () => {
    expect(dead.connectedAt.length).toBeGreaterThan(0);
    p.moveWell(50);
    try {
      // The well polls every 200 ms and its values move: over 3 s about 15 timestamps (report by
      // exception sends each change), whatever the dead RTU does.
      const since = Date.now();
      await sleep(3000);
      const recent = (await readings(p.assetId, 1000)).filter((r) => Date.parse(r.timestamp) >= since);
      expect(recent.length).toBeGreaterThanOrEqual(8);
      // The live RTU's values do not move, so report by exception sends none: its poller's own
      // clock shows it kept reading.
      const devices = agent.status().devices;
      const live = devices.find((d) => d.name === "Station RTU");
      expect(live?.state).toBe("ok");
      expect(Date.parse(live?.last_read_at ?? "")).toBeGreaterThanOrEqual(since + 2000);
      const silent = devices.find((d) => d.name === "Unreachable RTU");
      expect(silent?.state).toBe("failing");
    } finally {
      p.stopWell();
    }
  });
});
