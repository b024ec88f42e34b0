import { z } from "zod";
import { mqttUrlSchema } from "./mqtt/agent-file-config.ts";

/** Where an agent trades its one-time enrollment code for its token (server_url + this). */
export const ENROLL_PATH = "/api/edge/agents/enroll";

/** POST /api/edge/agents/enroll's answer: what the agent keeps in `<data_dir>/agent-token.json`. */
export const enrollResponseSchema = z.object({
  project_id: z.uuid(),
  agent_token: z
    .string()
    .min(16)
    .meta({ description: "The agent's MQTT password. Shown once; keep it secret." }),
  mqtt_username: z.string().min(1).meta({ example: "agent:2b0c…" }),
  mqtt_url: mqttUrlSchema.meta({
    description: "The broker: PUBLIC_MQTT_URL, or mqtt://<PUBLIC_URL's or the request's host>:<MQTT_PORT>",
    example: "mqtt://caudal.example.com:1883",
  }),
});

export type EnrollResponse = z.infer<typeof enrollResponseSchema>;
