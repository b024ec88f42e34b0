import { z } from "@hono/zod-openapi";
import { PROTOCOLS } from "../../../../shared/field/data-types.ts";
import { deviceProblems, parseDeviceSettings } from "../../../../shared/field/protocol-config.ts";
import { DNP3_ADDRESS_MAX } from "../../../../shared/field/protocols/dnp3.ts";
import { uuidParam } from "../../../http/openapi.ts";
import { nameField } from "../field-schema.ts";
import { settingsRequestField, settingsResponseField } from "./settings-schema.ts";

export const protocolSchema = z.enum(PROTOCOLS).openapi({ example: "modbus_tcp" });

export const createDeviceRequest = z
  .object({
    name: nameField().openapi({ example: "PLC cabeza de pozo" }),
    protocol: protocolSchema,
    host: z
      .string()
      .trim()
      .min(1, "must not be empty")
      .max(255, "must be at most 255 characters")
      // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
      .regex(/^[^\s\x00-\x1f\x7f]+$/, "must not contain whitespace or control characters")
      // The agent builds each protocol's URL itself (OPC UA: opc.tcp://host:port + settings.endpoint_path).
      .refine((v) => !v.includes("://"), "must be a host name or address, not a URL")
      .nullable()
      .optional()
      .openapi({
        description:
          "Host name or IP address, not a URL (OPC UA: the path goes in settings.endpoint_path; " +
          "Modbus RTU: the serial port, e.g. /dev/ttyUSB0 or COM3)",
        example: "10.20.0.15",
      }),
    port: z
      .number()
      .int("must be an integer")
      .min(1, "must be between 1 and 65535")
      .max(65535, "must be between 1 and 65535")
      .nullable()
      .optional()
      .openapi({
        description:
          "Omitted or null: the protocol's port (OPC UA 4840, S7 102, DNP3 20000; Modbus none: 502 at the agent)",
        example: 502,
      }),
    slave_id: z
      .number()
      .int("must be an integer")
      .min(0, "must not be negative")
      .max(DNP3_ADDRESS_MAX, `must be at most ${DNP3_ADDRESS_MAX}`)
      .nullable()
      .optional()
      .openapi({
        description: "Modbus unit identifier (0..255) or DNP3 outstation address (0..65519)",
        example: 1,
      }),
    enabled: z.boolean().optional().openapi({ default: true }),
    settings: settingsRequestField,
  })
  .superRefine((v, issue) => {
    // One definition of each protocol's rules (shared/field/protocol-config.ts), as the agent applies them.
    const settings = parseDeviceSettings(v.protocol, v.settings);
    const problems = settings.ok
      ? deviceProblems(v.protocol, { slave_id: v.slave_id ?? null, settings: settings.settings })
      : settings.problems;
    for (const p of problems)
      issue.addIssue({ code: "custom", path: p.field.split("."), message: p.message });
  })
  .openapi("CreateDeviceRequest", {
    description: "Create body; PUT takes the same body and replaces (omitted fields reset to defaults).",
  });

export const deviceSchema = z
  .object({
    id: z.uuid(),
    asset_id: z.uuid(),
    name: z.string(),
    protocol: protocolSchema,
    host: z.string().nullable(),
    port: z.number().int().nullable(),
    slave_id: z.number().int().nullable(),
    enabled: z.boolean(),
    settings: settingsResponseField,
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .openapi("EdgeDevice");

export const assetIdParams = z.object({ asset_id: uuidParam("asset_id") });
