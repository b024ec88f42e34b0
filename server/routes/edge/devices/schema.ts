import { z } from "@hono/zod-openapi";
import { PROTOCOLS } from "../../../../shared/field/data-types.ts";
import { uuidParam } from "../../../http/openapi.ts";
import { nameField } from "../field-schema.ts";

export const protocolSchema = z.enum(PROTOCOLS).openapi({ example: "modbus_tcp" });

/** DNP3 (IEEE 1815-2012 §8.2.5.4): addresses 0xFFF0..0xFFFF are reserved for broadcast. */
const DNP3_ADDRESS_MAX = 0xffef;
/** Modbus Application Protocol V1.1b3 §4.4 / MBAP: the unit identifier is one byte. */
const MODBUS_UNIT_MAX = 255;

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
      .nullable()
      .optional()
      .openapi({
        description:
          "IP address or host name (OPC UA: an opc.tcp:// endpoint URL; Modbus RTU: the serial port, e.g. /dev/ttyUSB0 or COM3)",
        example: "10.20.0.15",
      }),
    port: z
      .number()
      .int("must be an integer")
      .min(1, "must be between 1 and 65535")
      .max(65535, "must be between 1 and 65535")
      .nullable()
      .optional()
      .openapi({ example: 502 }),
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
  })
  .superRefine((v, issue) => {
    const isModbus = v.protocol === "modbus_tcp" || v.protocol === "modbus_rtu";
    if (isModbus && typeof v.slave_id === "number" && v.slave_id > MODBUS_UNIT_MAX) {
      issue.addIssue({
        code: "custom",
        path: ["slave_id"],
        message: `must be between 0 and ${MODBUS_UNIT_MAX} for Modbus`,
      });
    }
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
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .openapi("EdgeDevice");

export const assetIdParams = z.object({ asset_id: uuidParam("asset_id") });
