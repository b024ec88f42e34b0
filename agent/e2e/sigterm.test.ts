import mqtt from "mqtt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { topics } from "../../shared/mqtt/topics.ts";
import { readAgentDb, seqRange } from "../testing/agent-db.ts";
import { ChildAgent, freePort } from "../testing/child-agent.ts";
import { Pipeline, sleep, waitFor, waitForDrain } from "../testing/pipeline.ts";

describe("SIGTERM: the agent process stops cleanly", () => {
  let p: Pipeline;
  beforeAll(async () => {
    p = await Pipeline.start({ pollIntervalMs: 100 });
  });
  afterAll(async () => p.stop());

  it("commits what it polled, publishes a clean offline status and exits 0", async () => {
    const { token, email } = await p.t.admin();
    // An HMI-style observer of the agent's retained status.
    const observer = await mqtt.connectAsync(p.mqttUrl, {
      username: email,
      password: token,
      reconnectPeriod: 0,
    });
    const statuses: { status: string; at?: string }[] = [];
    observer.on("message", (_topic, payload) => statuses.push(JSON.parse(payload.toString("utf8"))));
    await observer.subscribeAsync(topics.status(p.projectId), { qos: 1 });

    const dir = p.agentDir();
    const agent = new ChildAgent(p.agentConfig(dir, { local_api_port: await freePort() }));
    try {
      const deployment = await p.deploy();
      await agent.start();
      await p.waitDeployment(deployment.id);
      p.moveWell(50);
      await waitFor("points on the server", async () => (await p.storedPoints()) >= 40);
      await waitFor("online status", () => statuses.some((s) => s.status === "online"));

      const started = Date.now();
      const exit = await agent.kill("SIGTERM");
      expect(exit).toEqual({ code: 0, signal: null });
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(agent.entries().some((e) => e.message === "stopping on SIGTERM")).toBe(true);

      // The clean offline status carries `at`; the broker's last will (a crash) does not.
      const offline = await waitFor("offline status", () => statuses.find((s) => s.status === "offline"));
      expect(offline.at).toEqual(expect.any(String));
      const health = await p.t.request<{ status: string; reasons: string[] }>(
        `/api/edge/agents/${p.projectId}/health`,
        { token },
      );
      expect(health.body.status).toBe("offline");

      // Nothing lost at stop: every seq is on the server or still queued in the agent's store.
      await sleep(200); // a batch in flight at SIGTERM may still be committing on the server
      const db = readAgentDb(dir);
      const committed = new Set((await p.agentBatches(db.agentId)).seqs);
      for (const seq of seqRange(db.nextSeq - 1)) {
        expect(committed.has(seq) || db.outboxSeqs.includes(seq), `seq ${seq}`).toBe(true);
      }

      // Started again, it delivers the rest, exactly once.
      await agent.start();
      p.stopWell();
      const drained = await waitForDrain(() => agent.status().then((s) => s.buffer));
      expect((await agent.kill("SIGTERM")).code).toBe(0);
      const after = readAgentDb(dir);
      expect(after.storedPoints).toBe(drained.stored_points);
      expect(await p.storedPoints()).toBe(after.storedPoints);
      expect(await p.rollupPoints()).toBe(after.storedPoints);
      expect((await p.agentBatches(after.agentId)).seqs).toEqual(seqRange(after.nextSeq - 1));
    } finally {
      if (agent.running) await agent.kill("SIGKILL");
      await observer.endAsync();
    }
  });
});
