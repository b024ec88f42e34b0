import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OpcUaSeparator } from "../../scripts/sim/opcua-separator.ts";
import { freePort } from "../../scripts/testing/free-port.ts";
import type { CaudalAgent } from "../agent.ts";
import { Pipeline, waitFor } from "../testing/pipeline.ts";

type Row = { timestamp: string; readings: { variable: string; value: number }[] };

/**
 * OPC UA through the whole system (issue 9 §2): a device deployed from the API with
 * SignAndEncrypt/Basic256Sha256 and a username, read by the agent's subscription from node-opcua's
 * server; values changing on the server arrive in GET /api/telemetry, and a server restart is
 * survived without restarting the agent.
 */
describe("OPC UA end to end against the node-opcua server", () => {
  let p: Pipeline;
  let token: string;
  let agent: CaudalAgent;
  let assetId: string;
  let deviceId: string;
  const peer = new OpcUaSeparator();

  beforeAll(async () => {
    await peer.start(await freePort());
    p = await Pipeline.start({ autoDeploy: false });
    token = (await p.t.admin()).token;
    assetId = await p.t.asset(p.projectId, "station");
    const device = await p.t.request<{ id: string }>(`/api/edge/assets/${assetId}/devices`, {
      token,
      body: {
        name: "Separator",
        protocol: "opc_ua",
        host: "127.0.0.1",
        port: peer.port,
        settings: {
          security_mode: "SignAndEncrypt",
          security_policy: "Basic256Sha256",
          username: OpcUaSeparator.USER,
          password: OpcUaSeparator.PASSWORD,
          // The refusal of an untrusted certificate is the driver test's; here the first one is trusted.
          trust_on_first_use: true,
        },
      },
    });
    expect(device.status).toBe(201);
    deviceId = device.body.id;
    for (const [alias, address, data_type] of [
      ["separator_pressure", "ns=1;s=Separator.Pressure", "float64"],
      ["separator_level", "ns=1;s=Separator.Level", "float32"],
    ] as const) {
      const v = await p.t.request(`/api/edge/devices/${deviceId}/variables`, {
        token,
        body: { alias, address, data_type, poll_interval_ms: 200 },
      });
      expect(v.status).toBe(201);
    }
    agent = p.newAgent();
    await agent.start();
    await p.waitDeployment((await p.deploy()).id);
  }, 90_000);
  afterAll(async () => {
    await agent?.stop();
    await p?.stop();
    await peer.stop();
    peer.remove();
  });

  const latest = async (variable: string) => {
    const res = await p.t.request<Row[]>(`/api/telemetry/${assetId}?limit=100`, { token });
    expect(res.status).toBe(200);
    for (const row of res.body) {
      const r = row.readings.find((x) => x.variable === variable);
      if (r) return r.value;
    }
    return undefined;
  };

  it("values changing on the server arrive in GET /api/telemetry", async () => {
    expect(await waitFor("the first pressure", () => latest("separator_pressure"))).toBe(245.5);
    peer.values.pressure = 260.125;
    await waitFor("the new pressure", async () =>
      (await latest("separator_pressure")) === 260.125 ? true : undefined,
    );
  }, 60_000);

  it("a server restart is survived without restarting the agent", async () => {
    const port = peer.port;
    await peer.stop();
    peer.values.pressure = 270.5;
    await peer.start(port);
    await waitFor(
      "a value after the restart",
      async () => ((await latest("separator_pressure")) === 270.5 ? true : undefined),
      60_000,
    );
  }, 90_000);

  type Browse = {
    ok: boolean;
    error: string | null;
    children: { node_id: string; browse_name: string; node_class: string; data_type: string | null }[];
  };
  const browse = (body: unknown, id = deviceId, asToken = token) =>
    p.t.request<Browse>(`/api/edge/devices/${id}/browse`, { method: "POST", token: asToken, body });

  it("browse returns the server's folders and variables, through the agent", async () => {
    const root = await browse({});
    expect(root.status).toBe(200);
    expect(root.body.ok).toBe(true);
    const separator = root.body.children.find((c) => c.browse_name.endsWith("Separator"));
    expect(separator).toMatchObject({ node_class: "Object" });
    expect(root.body.children.some((c) => c.browse_name.endsWith("Server"))).toBe(true);
    const tags = await browse({ node_id: separator?.node_id });
    expect(tags.status).toBe(200);
    expect(tags.body.children).toEqual(
      expect.arrayContaining([
        {
          node_id: "ns=1;s=Separator.Pressure",
          browse_name: "1:Pressure",
          node_class: "Variable",
          data_type: "Double",
        },
        {
          node_id: "ns=1;s=Separator.Level",
          browse_name: "1:Level",
          node_class: "Variable",
          data_type: "Float",
        },
        {
          node_id: "ns=1;s=Separator.Running",
          browse_name: "1:Running",
          node_class: "Variable",
          data_type: "Boolean",
        },
      ]),
    );
  }, 30_000);

  it("browse: 400 for a bad NodeId, 401, 403, 404, and 409 for a device of another protocol", async () => {
    const bad = await p.t.request<{ error: string; message: string }>(
      `/api/edge/devices/${deviceId}/browse`,
      {
        method: "POST",
        token,
        body: { node_id: "Separator.Pressure" },
      },
    );
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain("node_id");
    expect(
      (await p.t.request(`/api/edge/devices/${deviceId}/browse`, { method: "POST", body: {} })).status,
    ).toBe(401);
    const operador = await p.t.userWithRole("operador", [p.projectId]);
    expect((await browse({}, deviceId, operador.token)).status).toBe(403);
    expect((await browse({}, "00000000-0000-4000-8000-000000000000")).status).toBe(404);
    const devices = await p.t.request<{ id: string }[]>(`/api/edge/assets/${p.assetId}/devices`, { token });
    const modbus = devices.body[0]?.id ?? "";
    const other = await p.t.request<{ error: string }>(`/api/edge/devices/${modbus}/browse`, {
      method: "POST",
      token,
      body: {},
    });
    expect(other.status).toBe(409);
  }, 30_000);

  it("test-read reads the device through the agent", async () => {
    const res = await p.t.request<{ ok: boolean; results: { alias: string; value: number | null }[] }>(
      `/api/edge/devices/${deviceId}/test-read`,
      { method: "POST", token },
    );
    expect(res.status).toBe(200);
    expect(res.body.ok).toBe(true);
    expect(res.body.results.find((r) => r.alias === "separator_level")?.value).toBe(3.25);
  }, 30_000);
});
