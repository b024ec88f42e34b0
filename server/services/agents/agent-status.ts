import type { Payload } from "../../../shared/mqtt/topics.ts";
import type { ServiceContext } from "../context.ts";
import type { AgentHealthReport } from "./health-report.ts";

/** A heartbeat (every 15 s) is the agent's health report: kept whole, and summarised on the project. */
export async function recordHeartbeat(
  ctx: ServiceContext,
  projectId: string,
  hb: Payload<"heartbeat">,
): Promise<void> {
  const now = ctx.clock.now();
  const report: AgentHealthReport = {
    received_at: now.toISOString(),
    agent_version: hb.agent_version,
    uptime_seconds: hb.uptime_seconds,
    devices: hb.devices,
    buffer: hb.buffer,
    config: hb.config,
  };
  await ctx.store.transaction(async (tx) => {
    await tx.agents.markSeen(projectId, now, hb);
    await tx.agents.setHealthReport(projectId, report);
  });
  ctx.events.emit("agentHeartbeat", { projectId, heartbeat: hb });
}

/** The agent's retained status: `online` on connect, `offline` on clean stop or as the broker's last will. */
export async function recordAgentStatus(
  ctx: ServiceContext,
  projectId: string,
  status: Payload<"status">,
): Promise<void> {
  const now = ctx.clock.now();
  if (status.status === "offline") await ctx.store.agents.markOffline(projectId, now);
  else await ctx.store.agents.markOnline(projectId, now);
  ctx.events.emit("agentStatus", { projectId, status: status.status });
}
