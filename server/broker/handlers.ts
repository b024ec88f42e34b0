import type { Payload } from "../../shared/mqtt/topics.ts";
import { appendAgentLogs } from "../services/agents/agent-logs.ts";
import { recordAgentStatus, recordHeartbeat } from "../services/agents/agent-status.ts";
import { recordConfigStatus } from "../services/agents/deploy.ts";
import { receiveAgentBatch } from "../services/agents/receive-batch.ts";
import type { ServiceContext } from "../services/context.ts";
import type { TelemetryService } from "../services/telemetry/service.ts";
import type { MessageRouter } from "./messages.ts";

/** The broker's message handlers: each hands a parsed contract payload to its service. */
export function agentMessageHandlers(ctx: ServiceContext, telemetry: TelemetryService): MessageRouter {
  return {
    telemetry: (projectId, body) => receiveAgentBatch(ctx, telemetry, projectId, body),
    heartbeat: (projectId, body) => recordHeartbeat(ctx, projectId, body),
    logs: async (projectId, body: Payload<"logs">) => {
      await appendAgentLogs(
        ctx,
        projectId,
        body.entries.map((e) => ({ ...e, timestamp: new Date(e.timestamp) })),
      );
    },
    configStatus: (projectId, body) => recordConfigStatus(ctx, projectId, body),
    status: (projectId, body) => recordAgentStatus(ctx, projectId, body),
    response: (projectId, body) => ctx.events.emit("agentResponse", { projectId, body }),
    invalid: (projectId, topic, reason) =>
      ctx.logger.warn("invalid agent message", { project_id: projectId, topic, reason }),
  };
}
