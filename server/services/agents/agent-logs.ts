import { randomUUID } from "node:crypto";
import { notFound } from "../../errors.ts";
import type { AgentLogRow } from "../../store/rows.ts";
import { type AuthContext, assertProjectVisible } from "../auth/auth-context.ts";
import type { ServiceContext } from "../context.ts";

export const LOG_LEVELS = ["debug", "info", "warn", "error"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export type NewLogEntry = {
  level: LogLevel;
  category?: string | undefined;
  message: string;
  timestamp?: Date | undefined;
};

export type LogEntryDto = {
  id: string;
  project_id: string;
  level: LogLevel;
  category: string;
  message: string;
  timestamp: string;
};

function toDto(r: AgentLogRow): LogEntryDto {
  return {
    id: r.id,
    project_id: r.projectId,
    level: r.level,
    category: r.category,
    message: r.message,
    timestamp: r.timestamp.toISOString(),
  };
}

/** Appends log entries of a project's agent (from MQTT or POST /api/edge/agents/logs). */
export async function appendAgentLogs(
  ctx: ServiceContext,
  projectId: string,
  entries: NewLogEntry[],
): Promise<LogEntryDto[]> {
  const now = ctx.clock.now();
  const rows = entries.map((e) => ({
    id: randomUUID(),
    projectId,
    level: e.level,
    category: e.category?.trim() || "agent",
    message: e.message,
    timestamp: e.timestamp ?? now,
    createdAt: now,
  }));
  await ctx.store.agents.appendLogs(rows);
  return rows.map(toDto);
}

export async function postAgentLog(
  ctx: ServiceContext,
  auth: AuthContext,
  projectId: string,
  entry: NewLogEntry,
): Promise<LogEntryDto> {
  assertProjectVisible(auth, projectId);
  if (!(await ctx.store.field.project(projectId))) throw notFound("project");
  const [dto] = await appendAgentLogs(ctx, projectId, [entry]);
  if (!dto) throw new Error("log entry was not stored");
  return dto;
}

/** Newest first; `level` keeps entries at or above it. */
export async function listAgentLogs(
  ctx: ServiceContext,
  auth: AuthContext,
  query: { projectId: string; level?: LogLevel | undefined; limit: number },
): Promise<LogEntryDto[]> {
  assertProjectVisible(auth, query.projectId);
  if (!(await ctx.store.field.project(query.projectId))) throw notFound("project");
  const levels = LOG_LEVELS.slice(LOG_LEVELS.indexOf(query.level ?? "debug"));
  return (await ctx.store.agents.logsOf(query.projectId, levels, query.limit)).map(toDto);
}
