import { z } from "zod";
import { payloads } from "../../../shared/mqtt/topics.ts";

/**
 * The agent's latest health report as the server keeps it on the project (last_health_report):
 * its heartbeat (shared/mqtt/topics.ts) without agent_id, plus when the server received it.
 */
export const agentHealthReportSchema = payloads.heartbeat
  .omit({ agent_id: true })
  .extend({ received_at: z.iso.datetime() });

export type AgentHealthReport = z.infer<typeof agentHealthReportSchema>;

/** The stored JSON column; anything that is not a report (say, from an older version) reads as null. */
export function parseHealthReport(value: unknown): AgentHealthReport | null {
  const parsed = agentHealthReportSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}
