import { z } from "@hono/zod-openapi";
import {
  DATA_TYPES,
  REGISTER_KINDS,
  registerWidth,
  WORD_ORDERS,
} from "../../../../shared/field/data-types.ts";
import { uuidParam } from "../../../http/openapi.ts";
import { nameField, optionalTextField } from "../field-schema.ts";

export const POLL_INTERVAL_MIN_MS = 100;
export const POLL_INTERVAL_MAX_MS = 86_400_000;

export const dataTypeSchema = z.enum(DATA_TYPES).openapi({
  description: "float and int keep the spec's meaning (read as float32 and int16 from registers)",
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
      .openapi({ description: "Modbus PDU address, zero-based (Modbus Application Protocol §4.4)" }),
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
        "Non-Modbus address: OPC UA NodeId (ns=2;s=Pump1.Speed), S7 (DB1,REAL4), DNP3 point (g30v5:3)",
    }),
    register_kind: registerKindSchema.optional().openapi({ default: "holding" }),
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
  .superRefine((v, issue) => {
    // Coils and discrete inputs are single bits (Modbus FC 1 and 2): only bool can hold them.
    const kind = v.register_kind ?? "holding";
    if ((kind === "coil" || kind === "discrete") && v.data_type !== "bool") {
      issue.addIssue({
        code: "custom",
        path: ["register_kind"],
        message: `${kind} holds a single bit: data_type must be bool`,
      });
    }
    // A multi-register value must fit below the end of the 16-bit address space.
    if (typeof v.register_address === "number") {
      const last = v.register_address + registerWidth(v.data_type) - 1;
      if (last > 65535) {
        issue.addIssue({
          code: "custom",
          path: ["register_address"],
          message: `a ${v.data_type} at ${v.register_address} would run past register 65535`,
        });
      }
    }
  })
  .openapi("CreateVariableRequest", {
    description: "Create body; PUT takes the same body and replaces (omitted fields reset to defaults).",
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
