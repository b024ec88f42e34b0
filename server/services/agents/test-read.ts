import { randomUUID } from "node:crypto";
import type { Payload } from "../../../shared/mqtt/topics.ts";
import { AppError } from "../../errors.ts";
import type { AuthContext } from "../auth/auth-context.ts";
import type { ServiceContext } from "../context.ts";
import { visibleDevice } from "../field/lookup.ts";
import { toAgentDevice } from "./agent-device-config.ts";
import { AGENT_DEADLINE_SHARE, askAgent, assertAgentOnline } from "./agent-requests.ts";

/** How long the agent has to connect, read once and answer. */
export const TEST_READ_TIMEOUT_MS = 10_000;

export type TestReadResult = {
  device_id: string;
  ok: boolean;
  error: string | null;
  results: Payload<"response">["results"];
  duration_ms: number;
};

/**
 * POST /edge/devices/{id}/test-read (issue 9 §5): the project's agent reads the device's enabled
 * variables once, with the device as it is now in the database (deployed or not), and answers
 * each value or error. The request goes over MQTT (`agent/request`, agent-only: it carries the
 * OPC UA password) and the answer comes back on `agent/response`. No answer in time is a 504.
 */
export async function testReadDevice(
  ctx: ServiceContext,
  auth: AuthContext,
  deviceId: string,
  timeoutMs = TEST_READ_TIMEOUT_MS,
): Promise<TestReadResult> {
  const { device, projectId } = await visibleDevice(ctx.store.field, auth, deviceId);
  await assertAgentOnline(ctx, projectId);
  const vars = await ctx.store.agents.enabledVariables([device.id]);
  if (vars.length === 0) throw new AppError("Conflict", "the device has no enabled variables to read");
  const message: Payload<"request"> = {
    request_id: randomUUID(),
    kind: "test_read",
    device: toAgentDevice(ctx.keys, device, vars),
    timeout_ms: Math.round(timeoutMs * AGENT_DEADLINE_SHARE),
  };
  const started = performance.now();
  const body = await askAgent(ctx, projectId, message, timeoutMs);
  return {
    device_id: device.id,
    ok: body.ok,
    error: body.error ?? null,
    results: body.results,
    duration_ms: Math.round(performance.now() - started),
  };
}
