import { z } from "@hono/zod-openapi";
import { dnp3SettingsSchema } from "../../../../shared/field/protocols/dnp3.ts";
import { modbusSettingsSchema } from "../../../../shared/field/protocols/modbus.ts";
import { opcUaSettingsSchema } from "../../../../shared/field/protocols/opc-ua.ts";
import { s7SettingsSchema } from "../../../../shared/field/protocols/s7.ts";

/*
 * OpenAPI components of the device `settings` extension, one per protocol, built from the shared
 * definitions (shared/field/protocols/). Validation is by protocol (createDeviceRequest), not by
 * trying each shape in turn: a union would reject `{rack: 9}` without naming settings.rack.
 * Each is cloned first: zod-openapi equips the schemas built after it loads, and the shared ones
 * may have been built before (when the agent's modules load first, as in the end-to-end tests).
 */

const opcUa = opcUaSettingsSchema.clone().openapi("OpcUaSettings", {
  description: "protocol opc_ua (port defaults to 4840)",
  example: {
    security_mode: "SignAndEncrypt",
    security_policy: "Basic256Sha256",
    endpoint_path: "/UA/Compressor",
    username: "caudal",
    password: "write-only secret",
    trust_on_first_use: false,
  },
});
const s7 = s7SettingsSchema.clone().openapi("S7Settings", {
  description: "protocol s7 (port defaults to 102)",
  example: { rack: 0, slot: 1 },
});
const dnp3 = dnp3SettingsSchema.clone().openapi("Dnp3Settings", {
  description: "protocol dnp3 (port defaults to 20000; slave_id is the outstation address, 0–65519)",
  example: { master_address: 1, integrity_poll_interval_ms: 3_600_000, event_poll_interval_ms: 5000 },
});
const modbus = modbusSettingsSchema.clone().openapi("ModbusSettings", {
  description: "protocols modbus_tcp and modbus_rtu: none (slave_id and the variables' register_* fields)",
});

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const shapes = [ref("OpcUaSettings"), ref("S7Settings"), ref("Dnp3Settings"), ref("ModbusSettings")];

export const settingsRequestField = z
  .record(z.string(), z.unknown())
  .nullable()
  .optional()
  .openapi({
    description:
      "Protocol settings; their shape depends on `protocol` (OpcUaSettings, S7Settings, Dnp3Settings; " +
      "none for Modbus). Omitted or null: the protocol's defaults. A bad setting is a 400 naming it " +
      "(settings.<field>). On PUT an omitted OPC UA password keeps the stored one.",
    anyOf: shapes,
    example: { rack: 0, slot: 2 },
  });

export const settingsResponseField = z.union([opcUa, s7, dnp3, modbus]).openapi({
  description:
    "Effective settings, defaults applied ({} for Modbus). The OPC UA password is never returned: password_set says whether one is stored.",
});
