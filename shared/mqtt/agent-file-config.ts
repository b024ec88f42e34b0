import { z } from "zod";

export const mqttUrlSchema = z
  .string()
  .regex(/^(mqtts?|wss?):\/\/[^\s]+$/, "must be an mqtt://, mqtts://, ws:// or wss:// URL");

/**
 * The agent's own configuration file (AGENT_CONFIG), written by the installers. Versioned so a
 * later format can be migrated.
 *
 * Credentials: `agent_token` (with `mqtt_url`), or a one-time `enrollment_code` that the agent
 * trades at `server_url` for its token on its first start (an installer must not carry a
 * long-lived secret). `mqtt_url` may then be omitted: the server names its broker.
 */
export const agentFileConfigSchema = z
  .object({
    version: z.literal(1),
    server_url: z.url({ protocol: /^https?$/, error: "must be an http:// or https:// URL" }).optional(),
    mqtt_url: mqttUrlSchema.optional(),
    project_id: z.uuid(),
    agent_token: z.string().min(16, "looks truncated (at least 16 characters)").optional(),
    enrollment_code: z.string().min(16, "looks truncated (at least 16 characters)").optional(),
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
    /**
     * Host names the local API answers to besides IP addresses and localhost (e.g. the agent's
     * DNS name on the site network). Any other Host header is refused, so a web page elsewhere
     * cannot read the API through DNS rebinding.
     */
    local_api_hostnames: z
      .array(
        z
          .string()
          .regex(
            /^[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?$/,
            "must be a host name, e.g. rtu-7.field.local",
          ),
      )
      .max(32)
      .default([]),
    buffer_max_mb: z.number().positive().max(1_048_576).default(1024),
  })
  .superRefine((c, ctx) => {
    if (c.agent_token === undefined && c.enrollment_code === undefined)
      ctx.addIssue({
        code: "custom",
        path: ["agent_token"],
        message: "either agent_token or enrollment_code is required",
      });
    if (c.enrollment_code !== undefined && c.server_url === undefined)
      ctx.addIssue({
        code: "custom",
        path: ["server_url"],
        message: "is required with enrollment_code: the agent enrolls at the server's URL",
      });
    if (c.agent_token !== undefined && c.mqtt_url === undefined)
      ctx.addIssue({
        code: "custom",
        path: ["mqtt_url"],
        message: "is required with agent_token (it may be left out only when enrolling with enrollment_code)",
      });
  });

export type AgentFileConfig = z.infer<typeof agentFileConfigSchema>;

/** The configuration an agent runs with, once its credentials are known. */
export type AgentRunConfig = AgentFileConfig & { agent_token: string; mqtt_url: string };

/** A configuration that carries its own `agent_token` and `mqtt_url`; throws for one that must enroll first. */
export function configuredRunConfig(config: AgentFileConfig): AgentRunConfig {
  const { agent_token, mqtt_url } = config;
  if (agent_token === undefined || mqtt_url === undefined)
    throw new Error("the configuration has no agent_token and mqtt_url: the agent must enroll first");
  return { ...config, agent_token, mqtt_url };
}
