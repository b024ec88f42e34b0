import { z } from "zod";

/**
 * The agent's own configuration file (AGENT_CONFIG), written by the installers. Versioned so a
 * later format can be migrated.
 */
export const agentFileConfigSchema = z.object({
  version: z.literal(1),
  server_url: z.url().optional(),
  mqtt_url: z
    .string()
    .regex(/^(mqtts?|wss?):\/\/[^\s]+$/, "must be an mqtt://, mqtts://, ws:// or wss:// URL"),
  project_id: z.uuid(),
  agent_token: z.string().min(16, "looks truncated (at least 16 characters)"),
  data_dir: z.string().min(1),
  /**
   * Where the read-only local API listens. It has no authentication, so loopback by default;
   * `0.0.0.0` opens it to the site network.
   */
  local_api_host: z
    .string()
    .min(1, "must be an address to bind, e.g. 127.0.0.1 or 0.0.0.0")
    .default("127.0.0.1"),
  local_api_port: z.number().int().min(0).max(65535).default(8081),
  buffer_max_mb: z.number().positive().max(1_048_576).default(1024),
});

export type AgentFileConfig = z.infer<typeof agentFileConfigSchema>;
