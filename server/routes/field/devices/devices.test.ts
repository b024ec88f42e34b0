import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  auditOf,
  createDevice,
  createVariable,
  expectError,
} from "../../../testing/fixtures/field-fixtures.ts";
import { TestServer } from "../../../testing/harness.ts";
import { tableProbe } from "../../../testing/table-probe.ts";

type Device = {
  id: string;
  asset_id: string;
  name: string;
  protocol: string;
  host: string | null;
  port: number | null;
  slave_id: number | null;
  enabled: boolean;
  settings: Record<string, unknown>;
  created_at: string;
  updated_at: string;
};

describe("edge devices: CRUD", () => {
  let t: TestServer;
  let token: string;
  let projectId: string;
  let assetId: string;
  beforeAll(async () => {
    t = await TestServer.start();
    token = (await t.admin()).token;
    projectId = await t.project();
    assetId = await t.asset(projectId);
  });
  afterAll(async () => t.stop());

  it("POST creates with defaults (201); GET /devices/{id} returns it (200)", async () => {
    const res = await t.request<Device>(`/api/edge/assets/${assetId}/devices`, {
      token,
      body: { name: "PLC-1", protocol: "modbus_tcp" },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      asset_id: assetId,
      name: "PLC-1",
      protocol: "modbus_tcp",
      host: null,
      port: null,
      slave_id: null,
      enabled: true,
      settings: {},
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const got = await t.request<Device>(`/api/edge/devices/${res.body.id}`, { token });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);
  });

  it("keeps every field; accepts each protocol and the range limits", async () => {
    const full = await t.request<Device>(`/api/edge/assets/${assetId}/devices`, {
      token,
      body: {
        name: "RTU",
        protocol: "modbus_rtu",
        host: "/dev/ttyUSB0",
        port: 65535,
        slave_id: 255,
        enabled: false,
      },
    });
    expect(full.status).toBe(201);
    expect(full.body).toMatchObject({ host: "/dev/ttyUSB0", port: 65535, slave_id: 255, enabled: false });
    for (const protocol of ["modbus_tcp", "modbus_rtu", "opc_ua", "s7", "dnp3"]) {
      const res = await t.request(`/api/edge/assets/${assetId}/devices`, {
        token,
        body: { name: protocol, protocol, port: 1, slave_id: 0 },
      });
      expect(res.status).toBe(201);
    }
    // DNP3 outstation addresses go past one byte (IEEE 1815 §8.2.5.4).
    const dnp3 = await t.request<Device>(`/api/edge/assets/${assetId}/devices`, {
      token,
      body: { name: "outstation", protocol: "dnp3", host: "10.0.0.9", port: 20000, slave_id: 65519 },
    });
    expect(dnp3.status).toBe(201);
    expect(dnp3.body.slave_id).toBe(65519);
  });

  it("GET /assets/{id}/devices lists the asset's devices only", async () => {
    const other = await t.asset(projectId, "station");
    const a = await createDevice(t, other);
    const b = await createDevice(t, other, { protocol: "opc_ua", host: "10.0.0.5" });
    const res = await t.request<Device[]>(`/api/edge/assets/${other}/devices`, { token });
    expect(res.status).toBe(200);
    expect(res.body.map((d) => d.id).sort()).toEqual([a, b].sort());
  });

  it("PUT replaces: omitted fields go back to null (the port to the protocol's), enabled to true (200)", async () => {
    const id = await createDevice(t, assetId, {
      host: "10.0.0.1",
      port: 502,
      slave_id: 7,
      enabled: false,
    });
    const res = await t.request<Device>(`/api/edge/devices/${id}`, {
      method: "PUT",
      token,
      body: { name: "PLC-renamed", protocol: "s7" },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id,
      asset_id: assetId,
      name: "PLC-renamed",
      protocol: "s7",
      host: null,
      port: 102,
      slave_id: null,
      enabled: true,
      settings: { rack: 0, slot: 1 },
    });
    expect((await t.request<Device>(`/api/edge/devices/${id}`, { token })).body).toEqual(res.body);
  });

  it("DELETE answers 204 and removes the device's variables", async () => {
    const id = await createDevice(t, assetId);
    const variableId = await createVariable(t, id);
    const del = await t.request(`/api/edge/devices/${id}`, { method: "DELETE", token });
    expect(del.status).toBe(204);
    expectError(await t.request(`/api/edge/devices/${id}`, { token }), 404, "NotFound");
    expectError(await t.request(`/api/edge/variables/${variableId}`, { token }), 404, "NotFound");
    expect(await tableProbe(t.server).count("variables", { device_id: id })).toBe(0);
    const entries = await auditOf(t, id);
    expect(entries.map((e) => e.action)).toEqual(["create", "delete"]);
    expect(JSON.parse(entries[1]?.before ?? "null")).toMatchObject({ id, variables: [{ id: variableId }] });
  });

  it("401 without a token; 404 for unknown ids", async () => {
    const id = randomUUID();
    const body = { name: "x", protocol: "s7" };
    for (const [method, path] of [
      ["GET", `/api/edge/assets/${id}/devices`],
      ["POST", `/api/edge/assets/${id}/devices`],
      ["GET", `/api/edge/devices/${id}`],
      ["PUT", `/api/edge/devices/${id}`],
      ["DELETE", `/api/edge/devices/${id}`],
    ] as const) {
      const withBody = method === "POST" || method === "PUT";
      expectError(await t.request(path, { method, body: withBody ? body : undefined }), 401, "Unauthorized");
      expectError(
        await t.request(path, { method, token, body: withBody ? body : undefined }),
        404,
        "NotFound",
      );
    }
  });
});
