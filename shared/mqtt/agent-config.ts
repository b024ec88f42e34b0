import { createHash } from "node:crypto";
import { z } from "zod";
import { dataTypeSchema, protocolSchema, registerKindSchema, wordOrderSchema } from "../field/data-types.ts";
import { DNP3_ADDRESS_MAX } from "../field/protocols/dnp3.ts";
import { canonicalize } from "../jcs.ts";

/**
 * The runtime configuration a deployment sends to an agent (retained on the config topic).
 * Built by the server from the project's devices, variables and enabled alert rules.
 *
 * This schema is the structure every protocol shares. What each protocol demands of it (its
 * `settings`, the grammar of `address`, `register_address` for Modbus, the range of `slave_id`)
 * is defined once in shared/field/protocol-config.ts and checked by the agent before it applies
 * a deployment (agent/runtime/validate-config.ts), so that a refusal names the device, the
 * variable and the field rather than a position in this document.
 */
export const agentVariableSchema = z.object({
  id: z.uuid(),
  alias: z.string().min(1),
  data_type: dataTypeSchema,
  register_address: z.number().int().min(0).max(65535).nullable(),
  register_kind: registerKindSchema,
  word_order: wordOrderSchema,
  scale_factor: z.number().nullable(),
  unit: z.string().nullable(),
  address: z.string().nullable(),
  poll_interval_ms: z.number().int().min(100).max(86_400_000),
  deadband: z.number().min(0),
});

export const agentDeviceSchema = z.object({
  id: z.uuid(),
  asset_id: z.uuid(),
  name: z.string(),
  protocol: protocolSchema,
  host: z.string().nullable(),
  port: z.number().int().min(1).max(65535).nullable(),
  /** Modbus unit identifier (0–255) or DNP3 outstation address (0–65519). */
  slave_id: z.number().int().min(0).max(DNP3_ADDRESS_MAX).nullable(),
  /**
   * Effective protocol settings (OPC UA, S7, DNP3), defaults applied; absent for Modbus. The OPC UA
   * password travels here and nowhere else.
   */
  settings: z.record(z.string(), z.unknown()).optional(),
  variables: z.array(agentVariableSchema),
});

export const agentRuleSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  variable_alias: z.string(),
  condition: z.enum(["gt", "lt", "gte", "lte", "eq"]),
  threshold: z.number(),
  severity: z.enum(["info", "warning", "critical"]),
  deadband: z.number().min(0),
  delay_seconds: z.number().int().min(0),
});

export const agentRuntimeConfigSchema = z.object({
  project_id: z.uuid(),
  devices: z.array(agentDeviceSchema),
  alert_rules: z.array(agentRuleSchema),
});

export type AgentVariable = z.infer<typeof agentVariableSchema>;
export type AgentDevice = z.infer<typeof agentDeviceSchema>;
export type AgentRule = z.infer<typeof agentRuleSchema>;
export type AgentRuntimeConfig = z.infer<typeof agentRuntimeConfigSchema>;

/**
 * The content hash of a runtime configuration: SHA-256 hex over its RFC 8785 canonical JSON, so
 * the server and the agent agree whatever the key order of their objects.
 */
export function configHash(config: AgentRuntimeConfig): string {
  return createHash("sha256").update(canonicalize(config)).digest("hex");
}
