import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDevice, createVariable, expectError } from "../../../testing/fixtures/field-fixtures.ts";
import { TestServer } from "../../../testing/harness.ts";

type Variable = { id: string; address: string | null; data_type: string };

/** Variable `address` follows the device's protocol (issue 9 §1); S7 data types follow the address (§3). */
describe("edge variables: address per protocol", () => {
  let t: TestServer;
  let token: string;
  const device: Record<"opc_ua" | "s7" | "dnp3" | "modbus_tcp", string> = {
    opc_ua: "",
    s7: "",
    dnp3: "",
    modbus_tcp: "",
  };
  beforeAll(async () => {
    t = await TestServer.start();
    token = (await t.admin()).token;
    const assetId = await t.asset(await t.project());
    for (const protocol of Object.keys(device) as (keyof typeof device)[]) {
      device[protocol] = await createDevice(t, assetId, { protocol, host: "10.0.0.9" });
    }
  });
  afterAll(async () => t.stop());

  let n = 0;
  const post = (protocol: keyof typeof device, body: Record<string, unknown>) =>
    t.request<Variable>(`/api/edge/devices/${device[protocol]}/variables`, {
      token,
      body: { alias: `v${n++}`, data_type: "float", ...body },
    });

  const good: [keyof typeof device, string, string][] = [
    ["opc_ua", "ns=2;s=Well1.Pressure", "float"],
    ["opc_ua", "ns=3;i=1001", "float"],
    ["opc_ua", "i=2258", "float"],
    ["opc_ua", "ns=1;g=09087e75-8e5e-499b-954f-f2a9603db28a", "float"],
    ["opc_ua", "ns=1;b=M/RbKBsRVkePCePcx24oRA==", "float"],
    ["s7", "DB1,REAL0", "float32"],
    ["s7", "DB1,REAL4", "float"],
    ["s7", "DB1,INT4", "int16"],
    ["s7", "DB1,INT6", "int"],
    ["s7", "DB1,DINT8", "int32"],
    ["s7", "DB1,X12.0", "bool"],
    ["s7", "DB1,BYTE14", "uint16"],
    ["s7", "DB1,S20.10", "string"],
    ["s7", "M10.0", "bool"],
    ["s7", "MW20", "uint16"],
    ["s7", "I0.1", "bool"],
    ["s7", "Q0.0", "bool"],
    ["dnp3", "g30:3", "float"],
    ["dnp3", "g1:0", "bool"],
    ["dnp3", "g20:2", "uint32"],
  ];
  for (const [protocol, address, data_type] of good) {
    it(`${protocol}: ${address} (${data_type}) → 201`, async () => {
      const res = await post(protocol, { address, data_type });
      expect([res.status, res.text]).toEqual([201, expect.any(String)]);
      expect(res.body).toMatchObject({ address, data_type });
    });
  }

  const bad: [keyof typeof device, Record<string, unknown>, string][] = [
    ["opc_ua", { address: "Well1.Pressure" }, "address"],
    ["opc_ua", { address: "ns=70000;i=1" }, "address"],
    ["opc_ua", { address: "ns=2;i=abc" }, "address"],
    ["opc_ua", { address: "ns=1;g=not-a-guid" }, "address"],
    ["s7", { address: "DB1,REAL" }, "address"],
    ["s7", { address: "DB0,REAL0" }, "address"],
    ["s7", { address: "DB1,X12.8", data_type: "bool" }, "address"],
    ["s7", { address: "DB1,FLOAT0" }, "address"],
    ["s7", { address: "ns=2;s=x" }, "address"],
    ["s7", { address: "DB1,REAL0", data_type: "int16" }, "data_type"],
    ["s7", { address: "DB1,X12.0", data_type: "float" }, "data_type"],
    ["s7", { address: "DB1,INT4", data_type: "float32" }, "data_type"],
    ["s7", { address: "DB1,BYTE14", data_type: "int16" }, "data_type"],
    ["s7", { address: "DB1,S20.10", data_type: "float" }, "data_type"],
    ["dnp3", { address: "g30v5:3" }, "address"],
    ["dnp3", { address: "30:3" }, "address"],
    ["dnp3", { address: "g30:-1" }, "address"],
    ["dnp3", { address: "g30:65536" }, "address"],
    ["dnp3", { address: "g99:1" }, "address"],
    // Modbus-only rules apply to Modbus devices only.
    ["modbus_tcp", { register_kind: "coil", data_type: "float" }, "register_kind"],
  ];
  for (const [protocol, body, field] of bad) {
    it(`${protocol}: ${JSON.stringify(body)} → 400 (${field}) on POST and PUT`, async () => {
      expectError(await post(protocol, body), 400, "ValidationFailed", field);
      const id = await createVariable(t, device[protocol]);
      expectError(
        await t.request(`/api/edge/variables/${id}`, {
          method: "PUT",
          token,
          body: { alias: `put${n++}`, data_type: "float", ...body },
        }),
        400,
        "ValidationFailed",
        field,
      );
    });
  }

  it("register_address stays optional (spec §2); a coil on an OPC UA device is not checked", async () => {
    expect((await post("modbus_tcp", {})).status).toBe(201);
    expect((await post("opc_ua", { register_kind: "coil", data_type: "float" })).status).toBe(201);
  });
});
