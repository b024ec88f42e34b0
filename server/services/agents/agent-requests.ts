import type { Payload } from "../../../shared/mqtt/topics.ts";
import { AppError } from "../../errors.ts";
import type { ServiceContext } from "../context.ts";

/** The agent's own deadline for a request: a little less than ours, so its answer beats our timeout. */
export const AGENT_DEADLINE_SHARE = 0.8;

/*
 * Requests to a project's agent over MQTT (test-read, browse): `agent/request` out, the matching
 * `agent/response` back (routed by the broker to the `agentResponse` event), or a timeout.
 */

/**
 * Fails fast when the agent is known to be away (never connected, stopped, or its connection lost:
 * the broker published its last will), instead of waiting for a timeout.
 */
export async function assertAgentOnline(ctx: ServiceContext, projectId: string): Promise<void> {
  const row = await ctx.store.agents.status(projectId);
  if (!row)
    throw new AppError("AgentOffline", "the project has no agent connected yet: install and start one first");
  if (row.offlineAt && row.offlineAt.getTime() >= row.lastSeen.getTime()) {
    throw new AppError(
      "AgentOffline",
      `the project's agent is offline since ${row.offlineAt.toISOString()}: it must be connected to answer`,
    );
  }
}

/** Publishes `message` to the project's agent and resolves with its answer; 504 AgentTimeout after `timeoutMs`. */
export function askAgent(
  ctx: ServiceContext,
  projectId: string,
  message: Payload<"request">,
  timeoutMs: number,
): Promise<Payload<"response">> {
  return new Promise((resolve, reject) => {
    const onResponse = (e: { projectId: string; body: Payload<"response"> }) => {
      if (e.projectId !== projectId || e.body.request_id !== message.request_id) return;
      settle();
      resolve(e.body);
    };
    const timer = setTimeout(() => {
      settle();
      reject(
        new AppError(
          "AgentTimeout",
          `the project's agent did not answer within ${timeoutMs / 1000} s: check that it is online (GET /api/edge/agents/{id}/health)`,
        ),
      );
    }, timeoutMs);
    const settle = () => {
      clearTimeout(timer);
      ctx.events.off("agentResponse", onResponse);
    };
    ctx.events.on("agentResponse", onResponse);
    ctx.events.emit("agentRequest", { projectId, message });
  });
}
