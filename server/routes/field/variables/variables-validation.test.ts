import { afterAll, beforeAll, describe, it } from "vitest";
import { createDevice, createVariable, expectError } from "../../../testing/fixtures/field-fixtures.ts";
import { TestServer } from "../../../testing/harness.ts";

/** Each bad field of CreateVariableRequest is a 400 naming it, on POST and PUT. */
describe("edge variables: 400 per bad field", () => {
  let t: TestServer;
  let token: string;
  let deviceId: string;
  let variableId: string;
  beforeAll(async () => {
    t = await TestServer.start();
    token = (await t.admin()).token;
    deviceId = await createDevice(t, await t.asset(await t.project()));
    variableId = await createVariable(t, deviceId);
  });
  afterAll(async () => t.stop());

  const valid = { alias: "v", data_type: "float" };
  const cases: [string, Record<string, unknown>, string][] = [
    ["missing alias", { data_type: "float" }, "alias"],
    ["blank alias", { ...valid, alias: " " }, "alias"],
    ["alias too long", { ...valid, alias: "a".repeat(201) }, "alias"],
    ["alias with a control character", { ...valid, alias: "a\nb" }, "alias"],
    ["missing data_type", { alias: "v" }, "data_type"],
    ["unknown data_type", { ...valid, data_type: "double" }, "data_type"],
    ["register_address negative", { ...valid, register_address: -1 }, "register_address"],
    ["register_address 65536", { ...valid, register_address: 65536 }, "register_address"],
    ["register_address not an integer", { ...valid, register_address: 1.5 }, "register_address"],
    ["unit not a string", { ...valid, unit: 3 }, "unit"],
    ["unit too long", { ...valid, unit: "u".repeat(33) }, "unit"],
    ["scale_factor a string", { ...valid, scale_factor: "0.1" }, "scale_factor"],
    ["scale_factor zero", { ...valid, scale_factor: 0 }, "scale_factor"],
    ["enabled not a boolean", { ...valid, enabled: "true" }, "enabled"],
    ["address not a string", { ...valid, address: 40001 }, "address"],
    ["address too long", { ...valid, address: "a".repeat(257) }, "address"],
    ["unknown register_kind", { ...valid, register_kind: "holding_register" }, "register_kind"],
    ["unknown word_order", { ...valid, word_order: "BACD" }, "word_order"],
    ["poll_interval_ms below 100", { ...valid, poll_interval_ms: 99 }, "poll_interval_ms"],
    ["poll_interval_ms above a day", { ...valid, poll_interval_ms: 86_400_001 }, "poll_interval_ms"],
    ["poll_interval_ms not an integer", { ...valid, poll_interval_ms: 250.5 }, "poll_interval_ms"],
    ["deadband negative", { ...valid, deadband: -0.1 }, "deadband"],
    ["deadband a string", { ...valid, deadband: "1" }, "deadband"],
    [
      "float64 running past register 65535",
      { ...valid, data_type: "float64", register_address: 65533 },
      "register_address",
    ],
    [
      "int32 running past register 65535",
      { ...valid, data_type: "int32", register_address: 65535 },
      "register_address",
    ],
    ["coil with a float data_type", { ...valid, register_kind: "coil" }, "register_kind"],
    [
      "discrete input with an int data_type",
      { ...valid, data_type: "int", register_kind: "discrete" },
      "register_kind",
    ],
  ];

  for (const [label, body, field] of cases) {
    it(`${label} → 400 (${field})`, async () => {
      expectError(
        await t.request(`/api/edge/devices/${deviceId}/variables`, { token, body }),
        400,
        "ValidationFailed",
        field,
      );
      expectError(
        await t.request(`/api/edge/variables/${variableId}`, { method: "PUT", token, body }),
        400,
        "ValidationFailed",
        field,
      );
    });
  }

  it("malformed JSON and non-UUID ids → 400", async () => {
    expectError(
      await t.request(`/api/edge/devices/${deviceId}/variables`, { token, rawBody: "{" }),
      400,
      "BadRequest",
    );
    expectError(
      await t.request(`/api/edge/variables/${variableId}`, { method: "PUT", token, rawBody: "nul" }),
      400,
      "BadRequest",
    );
    expectError(await t.request("/api/edge/variables/1", { token }), 400, "ValidationFailed", "id");
    expectError(
      await t.request("/api/edge/devices/1/variables", { token }),
      400,
      "ValidationFailed",
      "device_id",
    );
  });
});
