import { z } from "zod";
import { AGENT_TARGETS } from "./agent-manifest.ts";

/**
 * The server's own build of the agent executables (GET /health `agent_build`, and the console's
 * installers section): building while its child process runs; ready when every target is served;
 * failed when its last build failed; unavailable when executables are missing and it cannot build
 * them (`message` says what to do).
 */
export const agentBuildStatusSchema = z.object({
  state: z.enum(["building", "ready", "failed", "unavailable"]),
  /** For people: what is happening, or what an administrator does. */
  message: z.string().nullable(),
  /** The targets whose executables are served now (windows-x64 with its WinSW). */
  built: z.array(z.enum(AGENT_TARGETS)),
  /** While building: the build's latest line, and executables done of those it makes. */
  step: z.string().nullable(),
  progress: z.object({ done: z.number().int().min(0), total: z.number().int().min(0) }).nullable(),
  started_at: z.iso.datetime().nullable(),
  finished_at: z.iso.datetime().nullable(),
  error: z.string().nullable(),
});
export type AgentBuildStatus = z.infer<typeof agentBuildStatusSchema>;

/**
 * The build's progress lines (scripts/build/agent-binaries.ts writes them, the server reads them
 * from its build's output): `[i/n] file` when target i of n starts, `[i/n] file: …` when it is done.
 */
export function targetStartLine(index: number, total: number, file: string): string {
  return `[${index}/${total}] ${file}`;
}

export function targetDoneLine(index: number, total: number, file: string, detail: string): string {
  return `[${index}/${total}] ${file}: ${detail}`;
}

const PROGRESS_LINE = /^\[(\d+)\/(\d+)\] [A-Za-z0-9._-]+(:)?/;

/** Executables done of the total after `line`, or null when it is not a progress line. */
export function progressOf(line: string): { done: number; total: number } | null {
  const m = PROGRESS_LINE.exec(line);
  if (!m) return null;
  const index = Number(m[1]);
  return { done: m[3] ? index : index - 1, total: Number(m[2]) };
}
