import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalStatus } from "../../shared/agent-local-api.ts";
import type { CaudalAgent } from "../agent.ts";
import { AgentLog, type AgentLogEntry } from "../agent-log.ts";
import { Pipeline, sleep, waitFor, waitForDrain } from "../testing/pipeline.ts";

type Health = { status: string; connected: boolean; link: string; reason: string | null };

/** Refused credentials are retried from 0.5 s, doubling to 1 s (the defaults: 15 s to 5 min). */
const PACE = { reconnectMs: 100, refusedMinMs: 500, refusedMaxMs: 1_000, refusedLogEveryMs: 60_000 };

/**
 * Issue 28 §4: a second enrollment on the project replaces its agent token. The running agent (a
 * real agent, connected to a real server) then says so on /status, /health and in its log, once,
 * retries slowly, keeps every reading, and recovers by itself when its token is accepted again.
 */
describe("an agent whose token was replaced by another enrollment", () => {
  let p: Pipeline;
  let admin: string;
  beforeAll(async () => {
    p = await Pipeline.start({ pollIntervalMs: 100 });
    admin = (await p.t.admin()).token;
  });
  afterAll(async () => p.stop());

  const local = async <T>(agent: CaudalAgent, path: string): Promise<T> => {
    const res = await fetch(`http://127.0.0.1:${agent.localApiPort}${path}`);
    expect(res.status).toBe(200);
    return (await res.json()) as T;
  };

  /** What an installer does on a second machine: a code from the console, traded for a token. */
  const enrollAnotherAgent = async (): Promise<string> => {
    const code = await p.t.request<{ code: string }>(`/api/edge/projects/${p.projectId}/enrollment-codes`, {
      method: "POST",
      token: admin,
    });
    expect(code.status).toBe(201);
    const enrolled = await p.t.request<{ agent_token: string }>("/api/edge/agents/enroll", {
      body: { code: code.body.code, project_id: p.projectId, hostname: "second-rig" },
    });
    expect(enrolled.status).toBe(200);
    return enrolled.body.agent_token;
  };

  it("reports the refusal in plain words, logs it once, retries slowly, buffers, and recovers", async () => {
    const entries: AgentLogEntry[] = [];
    const log = new AgentLog({ write: (line) => entries.push(JSON.parse(line) as AgentLogEntry) });
    const agent = p.newAgent(undefined, log, {}, { sync: PACE });
    await agent.start();
    try {
      await p.waitDeployment((await p.deploy()).id);
      p.moveWell(50);
      await waitFor("points on the server", async () => (await p.storedPoints()) >= 20);
      const connected = await local<LocalStatus>(agent, "/status");
      expect(connected.link).toMatchObject({ state: "connected", refused: null, reason: null });

      const rotatedAt = Date.now();
      const other = await enrollAnotherAgent();
      expect(other).not.toBe(p.agentToken);

      const health = await waitFor("/health to report the refusal", async () => {
        const h = await local<Health>(agent, "/health");
        return h.link === "refused" ? h : undefined;
      });
      expect(health.status).toBe("degraded");
      expect(health.connected).toBe(false);
      expect(health.reason).toMatch(/refused this agent's credentials \("Bad username or password"\)/);
      expect(health.reason).toMatch(/replaced by another enrollment/);
      expect(health.reason).toMatch(/re-enroll this agent/);

      const refused = await local<LocalStatus>(agent, "/status");
      expect(refused.connected).toBe(false);
      const link = refused.link;
      expect(link?.state).toBe("refused");
      expect(link?.reason).toBe(health.reason);
      // [MQTT-3.2.2-3] return code 4: bad user name or password.
      expect(link?.refused?.code).toBe(4);
      // The server closed the connection when the token was replaced: the agent names that time.
      const lostAt = Date.parse(link?.lost_at ?? "");
      expect(lostAt).toBeGreaterThanOrEqual(rotatedAt - 1_000);
      expect(lostAt).toBeLessThanOrEqual(Date.now());
      expect(link?.reason).toContain(`closed its last connection at ${link?.lost_at}`);
      const firstAt = link?.refused?.first_at ?? "";
      expect(link?.reason).toContain(`since ${firstAt}`);

      // Slow retries: from the first refusal, attempts 0.5, 1.5, 2.5, 3.5 s later (the network pace,
      // 0.1 s, would make about 40). Readings keep being stored, none sent.
      const before = refused.buffer;
      const windowStart = Date.parse(firstAt);
      await sleep(4_000 - (Date.now() - windowStart));
      const later = await local<LocalStatus>(agent, "/status");
      const attempts = later.link?.refused?.attempts ?? 0;
      expect(attempts).toBeGreaterThanOrEqual(3);
      expect(attempts).toBeLessThanOrEqual(6);
      expect(later.link?.refused?.first_at).toBe(firstAt);
      expect(later.buffer.stored_points).toBeGreaterThan(before.stored_points + 40);
      expect(later.buffer.points).toBeGreaterThan(40);
      expect(later.buffer.dropped_points).toBe(0);

      // Logged once, in the same words, with no line per attempt.
      const said = entries.filter((e) => e.message.includes("refused this agent's credentials"));
      expect(said).toHaveLength(1);
      expect(said[0]?.level).toBe("error");
      expect(said[0]?.message).toContain(link?.reason ?? "(no reason)");
      expect(entries.filter((e) => e.message.includes("Bad username or password"))).toHaveLength(1);

      // The project's token is this agent's again (as if an operator restored it): it reconnects
      // by itself, says so, and delivers what it buffered.
      await p.t.server.store.agents.setTokenHash(
        p.projectId,
        createHash("sha256").update(p.agentToken).digest("hex"),
        new Date(),
      );
      await waitFor("the agent to reconnect", () => agent.status().connected, 10_000);
      const back = await local<Health>(agent, "/health");
      expect(back).toMatchObject({ connected: true, link: "connected", reason: null });
      expect(entries.some((e) => e.message.includes("accepts this agent's credentials again"))).toBe(true);
      p.stopWell();
      const drained = await waitForDrain(() => agent.status().buffer);
      expect(await p.storedPoints()).toBe(drained.stored_points);
    } finally {
      p.stopWell();
      await agent.stop();
    }
  });
});
