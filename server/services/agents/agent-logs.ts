import { randomUUID } from "node:crypto";
import { and, desc, eq, inArray } from "drizzle-orm";
import { notFound } from "../../errors.ts";
import { agentLogs, projects } from "../../store/sqlite/schema/index.ts";
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

function toDto(r: typeof agentLogs.$inferSelect): LogEntryDto {
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
export function appendAgentLogs(
  ctx: ServiceContext,
  projectId: string,
  entries: NewLogEntry[],
): LogEntryDto[] {
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
  ctx.db.transaction((tx) => {
    for (const r of rows) tx.insert(agentLogs).values(r).run();
  });
  return rows.map(toDto);
}

export function postAgentLog(
  ctx: ServiceContext,
  auth: AuthContext,
  projectId: string,
  entry: NewLogEntry,
): LogEntryDto {
  assertProjectVisible(auth, projectId);
  if (!ctx.db.select({ id: projects.id }).from(projects).where(eq(projects.id, projectId)).get())
    throw notFound("project");
  const [dto] = appendAgentLogs(ctx, projectId, [entry]);
  if (!dto) throw new Error("log entry was not stored");
  return dto;
}

/** Newest first; `level` keeps entries at or above it. */
export function listAgentLogs(
  ctx: ServiceContext,
  auth: AuthContext,
  query: { projectId: string; level?: LogLevel | undefined; limit: number },
): LogEntryDto[] {
  assertProjectVisible(auth, query.projectId);
  if (!ctx.db.select({ id: projects.id }).from(projects).where(eq(projects.id, query.projectId)).get()) {
    throw notFound("project");
  }
  const levels = LOG_LEVELS.slice(LOG_LEVELS.indexOf(query.level ?? "debug"));
  return ctx.db
    .select()
    .from(agentLogs)
    .where(and(eq(agentLogs.projectId, query.projectId), inArray(agentLogs.level, [...levels])))
    .orderBy(desc(agentLogs.timestamp), desc(agentLogs.createdAt))
    .limit(query.limit)
    .all()
    .map(toDto);
}
