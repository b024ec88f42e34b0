import { hostname } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { z } from "zod";
import { ENROLL_PATH, type EnrollResponse, enrollResponseSchema } from "../shared/enrollment.ts";
import type { AgentFileConfig, AgentRunConfig } from "../shared/mqtt/agent-file-config.ts";
import type { AgentLog } from "./agent-log.ts";
import { readTokenFile, tokenFilePath, writeTokenFile } from "./token-file.ts";

/** The server said no (a used, expired or revoked code, a wrong URL): retrying cannot help. */
export class EnrollmentRefused extends Error {}

export type EnrollOptions = {
  log: AgentLog;
  /** Aborts the attempts and the waits between them (SIGTERM while the WAN is down). */
  signal?: AbortSignal;
  /** Told before each wait between attempts, e.g. to extend systemd's start timeout. */
  onWait?: (ms: number) => void;
  backoff?: { minMs: number; maxMs: number };
  requestTimeoutMs?: number;
};

const errorBody = z.object({ error: z.string(), message: z.string() });

async function describeRefusal(res: Response): Promise<string> {
  const text = await res.text().catch(() => "");
  try {
    const body = errorBody.parse(JSON.parse(text));
    return `HTTP ${res.status} ${body.error}: ${body.message}`;
  } catch {
    return `HTTP ${res.status}${text ? `: ${text.slice(0, 200)}` : ""}`;
  }
}

function networkReason(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause instanceof Error ? err.cause : undefined;
  const code = (cause as NodeJS.ErrnoException | undefined)?.code;
  if (err.name === "TimeoutError") return "no answer in time";
  return code ? `${code} ${cause?.message ?? ""}`.trim() : err.message;
}

/**
 * Trades the one-time code for the agent's token at `${serverUrl}/api/edge/agents/enroll`. Network
 * errors, 429 and 5xx are retried with exponential backoff, for as long as it takes (a site may
 * start before its WAN link); any other answer throws EnrollmentRefused.
 */
export async function enroll(
  serverUrl: string,
  code: string,
  projectId: string,
  opts: EnrollOptions,
): Promise<EnrollResponse> {
  const url = `${serverUrl.replace(/\/+$/, "")}${ENROLL_PATH}`;
  const { minMs, maxMs } = opts.backoff ?? { minMs: 1_000, maxMs: 60_000 };
  const body = JSON.stringify({ code, project_id: projectId, hostname: hostname() });
  let delay = minMs;
  for (let attempt = 1; ; attempt++) {
    let wait = delay;
    let reason: string;
    try {
      const timeout = AbortSignal.timeout(opts.requestTimeoutMs ?? 15_000);
      const res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
        signal: opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout,
      });
      if (res.status === 200) {
        const parsed = enrollResponseSchema.safeParse(await res.json().catch(() => undefined));
        if (!parsed.success) throw new EnrollmentRefused(`${url} answered 200 without an enrollment`);
        return parsed.data;
      }
      reason = await describeRefusal(res);
      if (res.status !== 429 && res.status < 500)
        throw new EnrollmentRefused(`enrollment refused: ${reason}`);
      const retryAfter = Number(res.headers.get("retry-after"));
      if (Number.isFinite(retryAfter) && retryAfter > 0) wait = Math.max(wait, retryAfter * 1000);
    } catch (err) {
      if (err instanceof EnrollmentRefused || opts.signal?.aborted) throw err;
      reason = networkReason(err);
    }
    opts.log.log(
      "warn",
      "enrollment",
      `enrollment at ${url} failed (${reason}); attempt ${attempt}, retrying in ${Math.round(wait / 1000)} s`,
    );
    opts.onWait?.(wait);
    await sleep(wait, undefined, opts.signal ? { signal: opts.signal } : undefined);
    delay = Math.min(delay * 2, maxMs);
  }
}

/**
 * The credentials the agent runs with, in this order: the token stored by an earlier enrollment
 * (`<data_dir>/agent-token.json`: re-running an installer keeps it, and ignores the new code), the
 * configuration's `agent_token`, or a new enrollment with `enrollment_code`, whose token is stored.
 * The configuration's `mqtt_url`, when given, wins over the one the server named.
 */
export async function agentCredentials(
  config: AgentFileConfig,
  opts: EnrollOptions,
): Promise<AgentRunConfig> {
  const file = tokenFilePath(config.data_dir);
  const stored = readTokenFile(file);
  if (stored) {
    if (stored.project_id !== config.project_id)
      throw new EnrollmentRefused(
        `${file} holds the token of project ${stored.project_id}, but the configuration names project ${config.project_id}; remove the file to enroll again`,
      );
    const ignored = [config.enrollment_code && "enrollment_code", config.agent_token && "agent_token"].filter(
      Boolean,
    );
    if (ignored.length > 0)
      opts.log.log(
        "info",
        "enrollment",
        `already enrolled: using the token in ${file}; ${ignored.join(" and ")} in the configuration ignored`,
      );
    return { ...config, agent_token: stored.agent_token, mqtt_url: config.mqtt_url ?? stored.mqtt_url };
  }
  if (config.agent_token !== undefined && config.mqtt_url !== undefined)
    return { ...config, agent_token: config.agent_token, mqtt_url: config.mqtt_url };
  if (config.enrollment_code === undefined || config.server_url === undefined)
    throw new EnrollmentRefused(
      "the configuration needs agent_token and mqtt_url, or enrollment_code and server_url",
    );
  opts.log.log("info", "enrollment", `enrolling at ${config.server_url} for project ${config.project_id}`);
  const enrolled = await enroll(config.server_url, config.enrollment_code, config.project_id, opts);
  if (enrolled.project_id !== config.project_id)
    throw new EnrollmentRefused(
      `the server enrolled this agent in project ${enrolled.project_id}, not ${config.project_id}`,
    );
  writeTokenFile(file, {
    project_id: enrolled.project_id,
    agent_token: enrolled.agent_token,
    mqtt_url: enrolled.mqtt_url,
  });
  opts.log.log("info", "enrollment", `enrolled; the agent token is stored in ${file}`);
  return { ...config, agent_token: enrolled.agent_token, mqtt_url: config.mqtt_url ?? enrolled.mqtt_url };
}
