import { randomUUID } from "node:crypto";
import type { Payload } from "../../../shared/mqtt/topics.ts";
import { AppError } from "../../errors.ts";
import type { AuthContext } from "../auth/auth-context.ts";
import type { ServiceContext } from "../context.ts";
import { visibleDevice } from "../field/lookup.ts";
import { toAgentDevice } from "./agent-device-config.ts";
import { AGENT_DEADLINE_SHARE, askAgent, assertAgentOnline } from "./agent-requests.ts";

export const BROWSE_TIMEOUT_MS = 10_000;

export type BrowseResult = {
  device_id: string;
  node_id: string | null;
  ok: boolean;
  error: string | null;
  children: NonNullable<Payload<"response">["nodes"]>;
};

/**
 * POST /edge/devices/{id}/browse (issue 9 §2): the project's agent connects to the OPC UA device
 * with its current settings and lists the children of `nodeId` (the Objects folder when null), so
 * an operator picks NodeIds instead of guessing them.
 */
export async function browseDevice(
  ctx: ServiceContext,
  auth: AuthContext,
  deviceId: string,
  nodeId: string | null,
  timeoutMs = BROWSE_TIMEOUT_MS,
): Promise<BrowseResult> {
  const { device, projectId } = await visibleDevice(ctx.store.field, auth, deviceId);
  if (device.protocol !== "opc_ua") {
    throw new AppError("Conflict", `browsing is for OPC UA devices; this one speaks ${device.protocol}`);
  }
  await assertAgentOnline(ctx, projectId);
  const body = await askAgent(
    ctx,
    projectId,
    {
      request_id: randomUUID(),
      kind: "browse",
      device: toAgentDevice(ctx.keys, device, []),
      node_id: nodeId,
      timeout_ms: Math.round(timeoutMs * AGENT_DEADLINE_SHARE),
    },
    timeoutMs,
  );
  return {
    device_id: device.id,
    node_id: nodeId,
    ok: body.ok,
    error: body.error ?? null,
    children: body.nodes ?? [],
  };
}
