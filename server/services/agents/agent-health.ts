import type { Payload } from "../../../shared/mqtt/topics.ts";
import { notFound } from "../../errors.ts";
import { type AuthContext, assertProjectVisible } from "../auth/auth-context.ts";
import type { ServiceContext } from "../context.ts";
import { newestReadingByDevice } from "./device-readings.ts";

/** A heartbeat is due every 15 s; three missed ones mean the agent is gone. */
export const ONLINE_WINDOW_MS = 45_000;
/** Data buffered longer than this means the agent is not keeping up (or cannot reach us). */
export const BACKLOG_LIMIT_MS = 5 * 60_000;

export type AgentHealth = {
  status: "online" | "degraded" | "offline";
  last_seen: string;
  uptime_seconds: number;
  /** In English, for logs and scripts. */
  reasons: string[];
  /** The same reasons as codes with their figures, which the console words in its language. */
  reason_codes: HealthReason[];
  agent_version: string | null;
  /** The heartbeat's devices, each with the newest reading the server holds of it. */
  devices: (Payload<"heartbeat">["devices"][number] & { last_reading_at: string | null })[];
  buffer: Payload<"heartbeat">["buffer"] | null;
  config: Payload<"heartbeat">["config"] | null;
};

export type HealthReason =
  | { code: "went_offline" }
  | { code: "no_heartbeat"; seconds: number }
  | { code: "device"; device: string; state: string; error: string | null }
  | { code: "backlog"; minutes: number; points: number };

export async function agentHealth(
  ctx: ServiceContext,
  auth: AuthContext,
  projectId: string,
): Promise<AgentHealth> {
  assertProjectVisible(auth, projectId);
  if (!(await ctx.store.field.project(projectId))) throw notFound("project");
  const row = await ctx.store.agents.status(projectId);
  if (!row) throw notFound("agent (this project has no agent yet)");
  const hb = row.heartbeat as Payload<"heartbeat"> | null;
  const newest =
    hb && hb.devices.length > 0
      ? await newestReadingByDevice(ctx.store, projectId)
      : new Map<string, number>();
  const now = ctx.clock.now().getTime();
  const lastSeen = row.lastSeen.getTime();
  const reasons: string[] = [];
  const codes: HealthReason[] = [];
  let status: AgentHealth["status"];
  if (row.offlineAt && row.offlineAt.getTime() >= lastSeen) {
    status = "offline";
    // Either status: offline (a clean stop) or the broker's last will for a lost connection.
    reasons.push("the agent went offline (stopped, or its connection was lost)");
    codes.push({ code: "went_offline" });
  } else if (now - lastSeen > ONLINE_WINDOW_MS) {
    status = "offline";
    const seconds = Math.round((now - lastSeen) / 1000);
    reasons.push(`no heartbeat for ${seconds} s`);
    codes.push({ code: "no_heartbeat", seconds });
  } else {
    const failing = hb?.devices.filter((d) => d.state !== "ok") ?? [];
    for (const d of failing) {
      reasons.push(`device ${d.name} is ${d.state}${d.last_error ? `: ${d.last_error}` : ""}`);
      codes.push({ code: "device", device: d.name, state: d.state, error: d.last_error ?? null });
    }
    const oldest = hb?.buffer.oldest_ts ?? null;
    if (oldest !== null && now - oldest > BACKLOG_LIMIT_MS) {
      const minutes = Math.round((now - oldest) / 60_000);
      const points = hb?.buffer.points ?? 0;
      reasons.push(`backlog ${minutes} min old (${points} points)`);
      codes.push({ code: "backlog", minutes, points });
    }
    status = reasons.length > 0 ? "degraded" : "online";
  }
  return {
    status,
    last_seen: row.lastSeen.toISOString(),
    uptime_seconds: hb ? hb.uptime_seconds + Math.max(0, Math.floor((now - lastSeen) / 1000)) : 0,
    reasons,
    reason_codes: codes,
    agent_version: hb?.agent_version ?? null,
    devices: (hb?.devices ?? []).map((d) => {
      const ts = newest.get(d.device_id);
      return { ...d, last_reading_at: ts === undefined ? null : new Date(ts).toISOString() };
    }),
    buffer: hb?.buffer ?? null,
    config: hb?.config ?? null,
  };
}
