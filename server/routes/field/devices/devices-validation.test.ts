import { afterAll, beforeAll, describe, it } from "vitest";
import { createDevice, expectError } from "../../../testing/fixtures/field-fixtures.ts";
import { TestServer } from "../../../testing/harness.ts";

/** Each bad field of CreateDeviceRequest is a 400 naming it, on POST and PUT. */
describe("edge devices: 400 per bad field", () => {
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

  const valid = { name: "PLC", protocol: "modbus_tcp" };
  const cases: [string, Record<string, unknown>, string][] = [
    ["missing name", { protocol: "s7" }, "name"],
    ["blank name", { ...valid, name: "" }, "name"],
    ["name too long", { ...valid, name: "n".repeat(201) }, "name"],
    ["missing protocol", { name: "PLC" }, "protocol"],
    ["unknown protocol", { ...valid, protocol: "profinet" }, "protocol"],
    ["host not a string", { ...valid, host: 10 }, "host"],
    ["host with whitespace", { ...valid, host: "10.0.0.1 502" }, "host"],
    ["host too long", { ...valid, host: "h".repeat(256) }, "host"],
    ["port 0", { ...valid, port: 0 }, "port"],
    ["port 65536", { ...valid, port: 65536 }, "port"],
    ["port not an integer", { ...valid, port: 502.5 }, "port"],
    ["port a string", { ...valid, port: "502" }, "port"],
    ["slave_id negative", { ...valid, slave_id: -1 }, "slave_id"],
    ["slave_id 256 for Modbus TCP", { ...valid, slave_id: 256 }, "slave_id"],
    ["slave_id 256 for Modbus RTU", { ...valid, protocol: "modbus_rtu", slave_id: 256 }, "slave_id"],
    ["slave_id above the DNP3 range", { ...valid, protocol: "dnp3", slave_id: 65520 }, "slave_id"],
    ["slave_id not an integer", { ...valid, slave_id: 1.5 }, "slave_id"],
    ["enabled not a boolean", { ...valid, enabled: 1 }, "enabled"],
  ];

  for (const [label, body, field] of cases) {
    it(`${label} → 400 (${field})`, async () => {
      expectError(
        await t.request(`/api/edge/assets/${assetId}/devices`, { token, body }),
        400,
        "ValidationFailed",
        field,
      );
      expectError(
        await t.request(`/api/edge/devices/${deviceId}`, { method: "PUT", token, body }),
        400,
        "ValidationFailed",
        field,
      );
    });
  }

  it("malformed JSON and non-UUID ids → 400", async () => {
    expectError(
      await t.request(`/api/edge/assets/${assetId}/devices`, { token, rawBody: "{" }),
      400,
      "BadRequest",
    );
    expectError(
      await t.request(`/api/edge/devices/${deviceId}`, { method: "PUT", token, rawBody: "}" }),
      400,
      "BadRequest",
    );
    expectError(await t.request("/api/edge/devices/nope", { token }), 400, "ValidationFailed", "id");
    expectError(
      await t.request("/api/edge/assets/nope/devices", { token }),
      400,
      "ValidationFailed",
      "asset_id",
    );
  });
});
