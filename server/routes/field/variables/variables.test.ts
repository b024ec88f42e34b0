import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  auditOf,
  createDevice,
  createVariable,
  expectError,
} from "../../../testing/fixtures/field-fixtures.ts";
import { TestServer } from "../../../testing/harness.ts";

type Variable = Record<string, unknown> & { id: string; alias: string };

const DEFAULTS = {
  register_address: null,
  unit: null,
  scale_factor: null,
  enabled: true,
  address: null,
  register_kind: "holding",
  word_order: "ABCD",
  poll_interval_ms: 1000,
  deadband: 0,
};

describe("edge variables: CRUD and alias uniqueness", () => {
  let t: TestServer;
  let token: string;
  let assetId: string;
  let deviceId: string;
  beforeAll(async () => {
    t = await TestServer.start();
    token = (await t.admin()).token;
    assetId = await t.asset(await t.project());
    deviceId = await createDevice(t, assetId);
  });
  afterAll(async () => t.stop());

  it("POST creates with defaults (201); GET /variables/{id} returns it (200)", async () => {
    const res = await t.request<Variable>(`/api/edge/devices/${deviceId}/variables`, {
      token,
      body: { alias: " whp ", data_type: "float" },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      device_id: deviceId,
      alias: "whp",
      data_type: "float",
      ...DEFAULTS,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const got = await t.request<Variable>(`/api/edge/variables/${res.body.id}`, { token });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);
  });

  it("keeps every field, including the protocol extensions", async () => {
    const body = {
      alias: "flow",
      data_type: "float",
      register_address: 65534,
      unit: "bbl/d",
      scale_factor: 0.1,
      enabled: false,
      address: "ns=2;s=Pump1.Flow",
      register_kind: "input",
      word_order: "CDAB",
      poll_interval_ms: 86_400_000,
      deadband: 0.5,
    };
    const res = await t.request<Variable>(`/api/edge/devices/${deviceId}/variables`, { token, body });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject(body);
    const coil = await t.request<Variable>(`/api/edge/devices/${deviceId}/variables`, {
      token,
      body: {
        alias: "pump_run",
        data_type: "bool",
        register_kind: "coil",
        register_address: 0,
        poll_interval_ms: 100,
      },
    });
    expect(coil.status).toBe(201);
    for (const [alias, address] of [
      ["s7_temp", "DB1,REAL4"],
      ["dnp3_ai", "g30v5:3"],
    ]) {
      const res2 = await t.request<Variable>(`/api/edge/devices/${deviceId}/variables`, {
        token,
        body: { alias, data_type: "float", address },
      });
      expect(res2.body.address).toBe(address);
    }
  });

  it("accepts every data type; multi-register types up to the last register they fit", async () => {
    for (const data_type of [
      "float",
      "int",
      "bool",
      "string",
      "int16",
      "uint16",
      "int32",
      "uint32",
      "float32",
      "float64",
    ]) {
      const res = await t.request<Variable>(`/api/edge/devices/${deviceId}/variables`, {
        token,
        body: { alias: `dt_${data_type}`, data_type },
      });
      expect([data_type, res.status]).toEqual([data_type, 201]);
    }
    const edge = await t.request<Variable>(`/api/edge/devices/${deviceId}/variables`, {
      token,
      body: { alias: "last_f64", data_type: "float64", register_address: 65532 },
    });
    expect(edge.status).toBe(201);
  });

  it("GET /devices/{id}/variables lists the device's variables only", async () => {
    const device = await createDevice(t, assetId);
    const a = await createVariable(t, device, { alias: "a" });
    const b = await createVariable(t, device, { alias: "b" });
    const res = await t.request<Variable[]>(`/api/edge/devices/${device}/variables`, { token });
    expect(res.status).toBe(200);
    expect(res.body.map((v) => v.id)).toEqual([a, b]);
  });

  it("an alias is unique within its asset (409) but may repeat on another asset", async () => {
    const device = await createDevice(t, assetId);
    await createVariable(t, device, { alias: "pressure" });
    const dup = await t.request(`/api/edge/devices/${device}/variables`, {
      token,
      body: { alias: "pressure", data_type: "int" },
    });
    expectError(dup, 409, "Conflict");
    expect((dup.body as { message: string }).message).toContain("pressure");
    const padded = await t.request(`/api/edge/devices/${device}/variables`, {
      token,
      body: { alias: "  pressure ", data_type: "int" },
    });
    expectError(padded, 409, "Conflict");
    // Telemetry is keyed by (asset, alias): a second device of the same asset may not reuse it.
    const sibling = await t.request<{ message: string }>(
      `/api/edge/devices/${await createDevice(t, assetId)}/variables`,
      {
        token,
        body: { alias: "pressure", data_type: "int" },
      },
    );
    expectError(sibling, 409, "Conflict");
    expect(sibling.body.message).toContain("another device of the same asset");
    const otherAsset = await t.asset(await t.project());
    await createVariable(t, await createDevice(t, otherAsset), { alias: "pressure" });

    const other = await createVariable(t, device, { alias: "temperature" });
    expectError(
      await t.request(`/api/edge/variables/${other}`, {
        method: "PUT",
        token,
        body: { alias: "pressure", data_type: "float" },
      }),
      409,
      "Conflict",
    );
    // Keeping its own alias is not a conflict.
    const same = await t.request(`/api/edge/variables/${other}`, {
      method: "PUT",
      token,
      body: { alias: "temperature", data_type: "int" },
    });
    expect(same.status).toBe(200);
  });

  // On PostgreSQL concurrent transactions each check the asset's aliases before any of them
  // commits, and the unique index only covers one device: the check must still hold.
  it("concurrent creates of one alias on devices of one asset: one 201 and 409s", async () => {
    const asset = await t.asset(await t.project());
    const devices = await Promise.all(Array.from({ length: 6 }, () => createDevice(t, asset)));
    const answers = await Promise.all(
      devices.map((device) =>
        t.request(`/api/edge/devices/${device}/variables`, {
          token,
          body: { alias: "racing", data_type: "float" },
        }),
      ),
    );
    expect(answers.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
  });

  it("PUT replaces: omitted fields go back to null or their defaults (200)", async () => {
    const id = await createVariable(t, deviceId, {
      alias: "level",
      register_address: 10,
      unit: "ft",
      scale_factor: 2,
      enabled: false,
      address: "DB2,REAL0",
      register_kind: "input",
      word_order: "DCBA",
      poll_interval_ms: 5000,
      deadband: 1,
    });
    const res = await t.request<Variable>(`/api/edge/variables/${id}`, {
      method: "PUT",
      token,
      body: { alias: "level_ft", data_type: "int" },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id,
      device_id: deviceId,
      alias: "level_ft",
      data_type: "int",
      ...DEFAULTS,
    });
    expect((await t.request<Variable>(`/api/edge/variables/${id}`, { token })).body).toEqual(res.body);
  });

  it("DELETE answers 204, then the variable is gone; every change is audited", async () => {
    const id = await createVariable(t, deviceId);
    await t.request(`/api/edge/variables/${id}`, {
      method: "PUT",
      token,
      body: { alias: "x1", data_type: "bool" },
    });
    const del = await t.request(`/api/edge/variables/${id}`, { method: "DELETE", token });
    expect(del.status).toBe(204);
    expectError(await t.request(`/api/edge/variables/${id}`, { token }), 404, "NotFound");
    expectError(await t.request(`/api/edge/variables/${id}`, { method: "DELETE", token }), 404, "NotFound");
    const entries = await auditOf(t, id);
    expect(entries.map((e) => [e.entity, e.action])).toEqual([
      ["variable", "create"],
      ["variable", "update"],
      ["variable", "delete"],
    ]);
    expect(JSON.parse(entries[1]?.after ?? "null")).toMatchObject({ alias: "x1", data_type: "bool" });
  });

  it("401 without a token; 404 for unknown ids", async () => {
    const id = randomUUID();
    const body = { alias: "x", data_type: "float" };
    for (const [method, path] of [
      ["GET", `/api/edge/devices/${id}/variables`],
      ["POST", `/api/edge/devices/${id}/variables`],
      ["GET", `/api/edge/variables/${id}`],
      ["PUT", `/api/edge/variables/${id}`],
      ["DELETE", `/api/edge/variables/${id}`],
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
