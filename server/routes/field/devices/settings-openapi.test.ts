import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { TestServer } from "../../../testing/harness.ts";

type Schema = {
  description?: string;
  example?: unknown;
  anyOf?: { $ref: string }[];
  writeOnly?: boolean;
  readOnly?: boolean;
  properties?: Record<string, Schema>;
};

/** The settings and address extensions are declared in the OpenAPI document, with examples (issue 9 §1). */
describe("OpenAPI: device settings and variable address", () => {
  let t: TestServer;
  let schemas: Record<string, Schema>;
  beforeAll(async () => {
    t = await TestServer.start();
    const res = await t.request<string>("/docs/openapi.yaml");
    schemas = (parse(res.text) as { components: { schemas: Record<string, Schema> } }).components.schemas;
  });
  afterAll(async () => t.stop());

  it("one component per protocol's settings, each with an example; the request and response point to them", () => {
    for (const name of ["OpcUaSettings", "S7Settings", "Dnp3Settings"]) {
      expect([name, schemas[name]?.example]).toEqual([name, expect.any(Object)]);
    }
    expect(schemas.ModbusSettings).toBeDefined();
    const refs = (schemas.CreateDeviceRequest?.properties?.settings?.anyOf ?? []).map((r) => r.$ref);
    expect(refs).toEqual(
      expect.arrayContaining(["#/components/schemas/OpcUaSettings", "#/components/schemas/S7Settings"]),
    );
    expect(schemas.EdgeDevice?.properties?.settings).toBeDefined();
    const opc = schemas.OpcUaSettings?.properties;
    expect(opc?.password?.writeOnly).toBe(true);
    expect(opc?.password_set?.readOnly).toBe(true);
  });

  it("host is documented as a host name, not a URL; address documents each protocol's grammar", () => {
    const host = schemas.CreateDeviceRequest?.properties?.host?.description ?? "";
    expect(host).toContain("not a URL");
    expect(host).not.toContain("opc.tcp://");
    const address = schemas.CreateVariableRequest?.properties?.address;
    for (const example of ["ns=2;s=Well1.Pressure", "DB1,REAL0", "MW20", "g30:3"]) {
      expect(address?.description).toContain(example);
    }
    expect(address?.example).toBe("ns=2;s=Well1.Pressure");
  });
});
