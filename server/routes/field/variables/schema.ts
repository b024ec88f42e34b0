import { z } from "@hono/zod-openapi";
import { DATA_TYPES, REGISTER_KINDS, WORD_ORDERS } from "../../../../shared/field/data-types.ts";
import { uuidParam } from "../../../http/openapi.ts";
import { nameField, optionalTextField } from "../field-schema.ts";

export const POLL_INTERVAL_MIN_MS = 100;
export const POLL_INTERVAL_MAX_MS = 86_400_000;

export const dataTypeSchema = z.enum(DATA_TYPES).openapi({
  description:
    "float and int keep the spec's meaning (read as float32 and int16 from registers). On S7 it follows " +
    "the address: BOOL (X, M10.0) bool; BYTE and WORD uint16; INT int16 or int; DINT int32; DWORD uint32; " +
    "REAL float32 or float; STRING string (otherwise a 400 naming data_type).",
  example: "float",
});
export const registerKindSchema = z.enum(REGISTER_KINDS).openapi({
  description: "Modbus table: holding (FC 3), input (FC 4), coil (FC 1), discrete input (FC 2)",
});
export const wordOrderSchema = z.enum(WORD_ORDERS).openapi({
  description: "Byte order of multi-register values (A = most significant byte); ABCD is big-endian",
});

export const createVariableRequest = z
  .object({
    alias: nameField().openapi({ description: "unique within the device", example: "presion_cabeza" }),
    data_type: dataTypeSchema,
    register_address: z
      .number()
      .int("must be an integer")
      .min(0, "must be between 0 and 65535")
      .max(65535, "must be between 0 and 65535")
      .nullable()
      .optional()
      .openapi({
        description:
          "Modbus PDU address, zero-based (Modbus Application Protocol §4.4). Optional here; a Modbus " +
          "variable needs it to be deployed. Other protocols use `address`.",
      }),
    unit: optionalTextField(32).openapi({ example: "psi" }),
    scale_factor: z
      .number()
      .refine((v) => v !== 0, "must not be zero")
      .nullable()
      .optional()
      .openapi({ description: "engineering value = raw × scale_factor", example: 0.1 }),
    enabled: z.boolean().optional().openapi({ default: true }),
    address: optionalTextField(256).openapi({
      description:
        "Where OPC UA, S7 and DNP3 devices read the variable; its grammar follows the device's protocol " +
        "(a 400 naming address otherwise; Modbus uses register_address). " +
        "OPC UA: a NodeId, ns=<index>;i=<uint32>|s=<string>|g=<guid>|b=<base64> (ns=2;s=Well1.Pressure, ns=3;i=1001). " +
        "S7 (nodes7 syntax): DB<n>,<type><byte>[.<bit or length>] or <M|I|Q>[B|W|D|R]<byte>[.<bit>] " +
        "(DB1,REAL0, DB1,INT4, DB1,DINT8, DB1,X12.0, DB1,BYTE14, DB1,S20.10, M10.0, MW20, I0.1, Q0.0). " +
        "DNP3: g<group>:<index> with group 1 (binary input), 20 (counter) or 30 (analog input) (g30:3, g1:0, g20:2). " +
        "Optional here; the device needs it to be deployed.",
      example: "ns=2;s=Well1.Pressure",
    }),
    register_kind: registerKindSchema
      .optional()
      .openapi({ description: "Modbus only: coil and discrete hold bool", default: "holding" }),
    word_order: wordOrderSchema.optional().openapi({ default: "ABCD" }),
    poll_interval_ms: z
      .number()
      .int("must be an integer")
      .min(POLL_INTERVAL_MIN_MS, `must be between ${POLL_INTERVAL_MIN_MS} and ${POLL_INTERVAL_MAX_MS}`)
      .max(POLL_INTERVAL_MAX_MS, `must be between ${POLL_INTERVAL_MIN_MS} and ${POLL_INTERVAL_MAX_MS}`)
      .optional()
      .openapi({ default: 1000 }),
    deadband: z
      .number()
      .min(0, "must not be negative")
      .optional()
      .openapi({ description: "report-by-exception threshold in engineering units", default: 0 }),
  })
  .openapi("CreateVariableRequest", {
    description:
      "Create body; PUT takes the same body and replaces (omitted fields reset to defaults). The rules " +
      "that depend on the device's protocol (address grammar, S7 data types, Modbus register kinds and " +
      "ranges) are checked against the device: a 400 naming the field.",
  });

export const variableSchema = z
  .object({
    id: z.uuid(),
    device_id: z.uuid(),
    alias: z.string(),
    data_type: dataTypeSchema,
    register_address: z.number().int().nullable(),
    unit: z.string().nullable(),
    scale_factor: z.number().nullable(),
    enabled: z.boolean(),
    address: z.string().nullable(),
    register_kind: registerKindSchema,
    word_order: wordOrderSchema,
    poll_interval_ms: z.number().int(),
    deadband: z.number(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .openapi("EdgeVariable");

export const deviceIdParams = z.object({ device_id: uuidParam("device_id") });
