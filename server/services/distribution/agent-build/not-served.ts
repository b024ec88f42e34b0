import type { AgentTarget } from "../../../../shared/distribution/agent-manifest.ts";
import { AppError } from "../../../errors.ts";

/** Seconds a client waits before asking again while the build runs (an executable takes 20-60 s). */
export const AGENT_BUILDING_RETRY_SECONDS = 30;

const BUILD_IT =
  "an administrator runs npm run build:agent in a checkout of Caudal, with its output in AGENT_DIST_DIR; the executables are served as soon as they are there";

export type NotServedFacts = {
  targets: readonly AgentTarget[];
  /** What the request wanted, for people ("the x86_64 agent binary"); `plural` for "are". */
  what: string;
  plural?: boolean;
  /** The build running now, if any. */
  building: { progress: { done: number; total: number } | null } | null;
  beingBuilt: (target: AgentTarget) => boolean;
  /** What this server can build (null: it has not looked, or builds nothing). */
  planned: { targets: readonly AgentTarget[]; cannot: Partial<Record<AgentTarget, string>> } | null;
  /** Why its last build failed, if it did. */
  lastError: string | null;
};

/**
 * The 503 for executables that are not served. Retry-After only while a build that makes one of
 * them runs: otherwise asking again cannot help, and the message says what an administrator does.
 */
export function notServedError(f: NotServedFacts): AppError {
  const is = f.plural ? "are" : "is";
  const it = f.plural ? "them" : "it";
  if (f.building && f.targets.some(f.beingBuilt)) {
    const p = f.building.progress;
    const done = p ? ` (${p.done} of ${p.total} done)` : "";
    return new AppError(
      "AgentBuilding",
      `the agent executables are being built: ${f.what} ${is} not ready yet${done}`,
      {
        retryAfterSeconds: AGENT_BUILDING_RETRY_SECONDS,
      },
    );
  }
  if (!f.planned) return agentNotBuilt(`${f.what} ${is} not built on this server: ${BUILD_IT}`);
  const planned = f.planned;
  const reasons = [...new Set(f.targets.map((t) => planned.cannot[t]).filter((r) => r !== undefined))];
  if (!f.targets.some((t) => planned.targets.includes(t)))
    return agentNotBuilt(
      `${f.what} ${is} not built on this server, and this server cannot build ${it}: ${reasons.join("; ")}. ${capitalized(BUILD_IT)}`,
    );
  if (f.lastError)
    return agentNotBuilt(
      `${f.what} ${is} not built: this server's build of the agent executables failed (${f.lastError}). See the server's log; restart the server to build again, or ${BUILD_IT}`,
    );
  return agentNotBuilt(
    `${f.what} ${is} not built on this server: restart the server, which builds missing executables at start, or ${BUILD_IT}`,
  );
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** No Retry-After: nothing under way will make it. */
function agentNotBuilt(message: string): AppError {
  return new AppError("AgentNotBuilt", message);
}
