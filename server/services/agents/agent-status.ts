import { eq } from "drizzle-orm";
import type { Payload } from "../../../shared/mqtt/topics.ts";
import { agentStatus, projects } from "../../store/sqlite/schema/index.ts";
import type { ServiceContext } from "../context.ts";
import type { AgentHealthReport } from "./health-report.ts";

/** A heartbeat (every 15 s) is the agent's health report: kept whole, and summarised on the project. */
export function recordHeartbeat(ctx: ServiceContext, projectId: string, hb: Payload<"heartbeat">): void {
  const now = ctx.clock.now();
  ctx.db.transaction((tx) => {
    tx.insert(agentStatus)
      .values({ projectId, lastSeen: now, heartbeat: hb, offlineAt: null })
      .onConflictDoUpdate({
        target: agentStatus.projectId,
        set: { lastSeen: now, heartbeat: hb, offlineAt: null },
      })
      .run();
    tx.update(projects)
      .set({
        lastHealthReport: {
          received_at: now.toISOString(),
          agent_version: hb.agent_version,
          uptime_seconds: hb.uptime_seconds,
          devices: hb.devices,
          buffer: hb.buffer,
          config: hb.config,
        } satisfies AgentHealthReport,
      })
      .where(eq(projects.id, projectId))
      .run();
  });
  ctx.events.emit("agentHeartbeat", { projectId, heartbeat: hb });
}

/** The agent's retained status: `online` on connect, `offline` on clean stop or as the broker's last will. */
export function recordAgentStatus(ctx: ServiceContext, projectId: string, status: Payload<"status">): void {
  const now = ctx.clock.now();
  const exists = ctx.db
    .select({ p: agentStatus.projectId })
    .from(agentStatus)
    .where(eq(agentStatus.projectId, projectId))
    .get();
  if (status.status === "offline") {
    if (exists)
      ctx.db.update(agentStatus).set({ offlineAt: now }).where(eq(agentStatus.projectId, projectId)).run();
  } else {
    ctx.db
      .insert(agentStatus)
      .values({ projectId, lastSeen: now, heartbeat: null, offlineAt: null })
      .onConflictDoUpdate({ target: agentStatus.projectId, set: { lastSeen: now, offlineAt: null } })
      .run();
  }
  ctx.events.emit("agentStatus", { projectId, status: status.status });
}
