import { z } from "zod";

const port = (fallback: number) => z.coerce.number().int().min(1).max(65535).default(fallback);

/**
 * The settings of `npm start` beyond the server's own (server/config.ts). Parsed once, like the
 * server's, so a typo stops it before anything starts.
 */
export const startConfigSchema = z.object({
  /** `CAUDAL_DEMO=0` runs the server alone, with no demo account, agent or simulator. */
  CAUDAL_DEMO: z
    .enum(["1", "0", "true", "false", "on", "off"], { error: "must be 1/0, true/false or on/off" })
    .default("1")
    .transform((v) => v === "1" || v === "true" || v === "on"),
  /** The PLC simulator's Modbus TCP port (scripts/sim/plc-simulator.ts reads the same variable). */
  SIM_PORT: port(5020),
  /** The simulator's OPC UA server (the demo separator); 4840 is OPC UA's registered port. */
  OPCUA_SIM_PORT: port(4840),
  /** The agent's local read-only API (agent/local-api.ts). */
  AGENT_LOCAL_API_PORT: port(8081),
});

export type StartConfig = z.infer<typeof startConfigSchema>;

/** Throws an Error with one line per bad variable. */
export function loadStartConfig(env: NodeJS.ProcessEnv): StartConfig {
  const defined = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ""));
  const result = startConfigSchema.safeParse(defined);
  if (!result.success) {
    const lines = result.error.issues.map((i) => `  ${i.path.join(".") || "(root)"}: ${i.message}`);
    throw new Error(`invalid configuration:\n${lines.join("\n")}`);
  }
  return result.data;
}
