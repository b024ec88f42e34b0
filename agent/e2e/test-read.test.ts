import mqtt from "mqtt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STATIC_RESPONSES } from "../../agent/drivers/dnp3/test-vectors.ts";
import { ScriptedOutstation } from "../../scripts/sim/dnp3-outstation.ts";
import { PymodbusPeer, pymodbusSkipReason } from "../../scripts/sim/pymodbus-peer.ts";
import { requirePeer } from "../../scripts/testing/require-peer.ts";
import { topics } from "../../shared/mqtt/topics.ts";
import type { CaudalAgent } from "../agent.ts";
import { Pipeline } from "../testing/pipeline.ts";
import { Snap7Peer } from "../testing/snap7-server.ts";

type Result = {
  variable_id: string;
  alias: string;
  value: number | null;
  quality: string;
  detail?: string | null;
};
type TestRead = {
  device_id: string;
  ok: boolean;
  error: string | null;
  results: Result[];
  duration_ms: number;
};

const pymodbus = requirePeer("python3-pymodbus", pymodbusSkipReason);

/**
 * Test-read (issue 9 §5): POST /api/edge/devices/{id}/test-read goes to the agent over MQTT, which
 * reads the device once with its current (undeployed) settings and answers each value or error.
 * Real server, real agent, real peers: the Modbus simulator, snap7's server, the DNP3 outstation.
 */
describe("test-read through the agent", () => {
  let p: Pipeline;
  let token: string;
  let agent: CaudalAgent;
  let modbusDevice: string;
  const plc = new Snap7Peer();
  const rtu = new ScriptedOutstation({
    address: 10,
    masterAddress: 1,
    integrity: [STATIC_RESPONSES.g30v5.apdu],
  });

  const device = async (assetId: string, body: Record<string, unknown>) => {
    const res = await p.t.request<{ id: string }>(`/api/edge/assets/${assetId}/devices`, { token, body });
    expect(res.status).toBe(201);
    return res.body.id;
  };
  const variable = async (deviceId: string, body: Record<string, unknown>) => {
    const res = await p.t.request(`/api/edge/devices/${deviceId}/variables`, {
      token,
      body: { poll_interval_ms: 1000, ...body },
    });
    expect(res.status).toBe(201);
  };
  const testRead = (deviceId: string, asToken = token) =>
    p.t.request<TestRead>(`/api/edge/devices/${deviceId}/test-read`, { method: "POST", token: asToken });
  const byAlias = (r: TestRead) => Object.fromEntries(r.results.map((x) => [x.alias, x]));

  beforeAll(async () => {
    plc.db1.writeFloatBE(88.5, 0);
    plc.publish();
    await plc.start();
    await rtu.listen(0);
    p = await Pipeline.start({ autoDeploy: false });
    token = (await p.t.admin()).token;
    const devices = await p.t.request<{ id: string }[]>(`/api/edge/assets/${p.assetId}/devices`, { token });
    modbusDevice = devices.body[0]?.id ?? "";
    agent = p.newAgent();
    await agent.start();
    await p.waitDeployment((await p.deploy()).id);
  });
  afterAll(async () => {
    await agent?.stop();
    await p?.stop();
    await rtu.close();
    plc.stop();
  });

  pymodbus.it(
    "Modbus (pymodbus): every variable's value, and a wrong register address is that variable's exception",
    async () => {
      const peer = await PymodbusPeer.start({ mode: "tcp", where: 0, registers: { holding: { 0: 1234 } } });
      try {
        const asset = await p.t.asset(p.projectId, "well");
        const id = await device(asset, {
          name: "Wellhead RTU",
          protocol: "modbus_tcp",
          host: "127.0.0.1",
          port: peer.port,
          slave_id: 1,
        });
        await variable(id, { alias: "casing_pressure", data_type: "uint16", register_address: 0 });
        // pymodbus holds 10,000 registers: 20,000 is an illegal data address (exception 2).
        await variable(id, { alias: "beyond_the_map", data_type: "uint16", register_address: 20_000 });
        // Not deployed: test-read uses the device as it is now.
        const res = await testRead(id);
        expect(res.status).toBe(200);
        expect(res.body.ok).toBe(true);
        const results = byAlias(res.body);
        expect(results.casing_pressure).toMatchObject({ quality: "good", value: 1234 });
        expect(results.beyond_the_map).toMatchObject({ quality: "device_exception", value: null });
        expect(results.beyond_the_map?.detail).toBeTruthy();
      } finally {
        await peer.stop();
      }
    },
  );

  it("S7: values from snap7, and a data block the PLC does not have is refused per variable", async () => {
    const asset = await p.t.asset(p.projectId, "station");
    const id = await device(asset, { name: "CPU", protocol: "s7", host: "127.0.0.1", port: plc.port });
    await variable(id, { alias: "pressure", address: "DB1,REAL0", data_type: "float32" });
    await variable(id, { alias: "missing", address: "DB9,INT0", data_type: "int16" });
    const res = await testRead(id);
    expect(res.status).toBe(200);
    expect(byAlias(res.body).pressure).toMatchObject({ quality: "good", value: 88.5 });
    expect(byAlias(res.body).missing).toMatchObject({ quality: "device_exception", value: null });
  });

  it("DNP3: the outstation's integrity poll answers", async () => {
    const asset = await p.t.asset(p.projectId, "station");
    const id = await device(asset, {
      name: "RTU",
      protocol: "dnp3",
      host: "127.0.0.1",
      port: rtu.port,
      slave_id: 10,
      settings: { master_address: 1 },
    });
    await variable(id, { alias: "line_pressure", address: "g30:0", data_type: "float32" });
    const res = await testRead(id);
    expect(res.status).toBe(200);
    expect(byAlias(res.body).line_pressure?.value).toBeCloseTo(STATIC_RESPONSES.g30v5.value, 3);
  });

  it("a device nobody listens on is a clear failed answer, not a 5xx", async () => {
    const asset = await p.t.asset(p.projectId, "station");
    const id = await device(asset, {
      name: "Gone",
      protocol: "modbus_tcp",
      host: "127.0.0.1",
      port: 1,
      slave_id: 1,
    });
    await variable(id, { alias: "x", data_type: "uint16", register_address: 0 });
    const res = await testRead(id);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ok: false, results: [] });
    expect(res.body.error).toMatch(/ECONNREFUSED|refused|connect/i);
  });

  it("401 without a token, 403 for a role without config:write, 404 for an unknown device, 409 with no variables", async () => {
    expect(
      (await p.t.request(`/api/edge/devices/${modbusDevice}/test-read`, { method: "POST" })).status,
    ).toBe(401);
    const operador = await p.t.userWithRole("operador", [p.projectId]);
    const forbidden = await testRead(modbusDevice, operador.token);
    expect(forbidden.status).toBe(403);
    const unknown = await testRead("00000000-0000-4000-8000-000000000000");
    expect(unknown.status).toBe(404);
    expect((await testRead("not-a-uuid")).status).toBe(400);
    const asset = await p.t.asset(p.projectId, "station");
    const empty = await device(asset, {
      name: "Empty",
      protocol: "modbus_tcp",
      host: "127.0.0.1",
      slave_id: 1,
    });
    const conflict = await p.t.request<{ error: string }>(`/api/edge/devices/${empty}/test-read`, {
      method: "POST",
      token,
    });
    expect(conflict.status).toBe(409);
  });

  it("409 AgentOffline at once when the agent is away", async () => {
    await agent.stop();
    const started = performance.now();
    const res = await p.t.request<{ error: string; message: string }>(
      `/api/edge/devices/${modbusDevice}/test-read`,
      { method: "POST", token },
    );
    expect(res.status).toBe(409);
    expect(res.body.error).toBe("AgentOffline");
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it("504 AgentTimeout when a connected agent does not answer (e.g. a version without test-read)", async () => {
    const deaf = await mqtt.connectAsync(p.mqttUrl, {
      username: `agent:${p.projectId}`,
      password: p.agentToken,
      reconnectPeriod: 0,
    });
    try {
      await deaf.publishAsync(topics.status(p.projectId), JSON.stringify({ status: "online" }), {
        qos: 1,
        retain: true,
      });
      const res = await p.t.request<{ error: string; message: string }>(
        `/api/edge/devices/${modbusDevice}/test-read`,
        { method: "POST", token },
      );
      expect(res.status).toBe(504);
      expect(res.body.error).toBe("AgentTimeout");
      expect(res.body.message).toContain("did not answer");
    } finally {
      await deaf.endAsync(true);
    }
  }, 30_000);
});
