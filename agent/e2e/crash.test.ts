import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readAgentDb, seqRange } from "../testing/agent-db.ts";
import { ChildAgent, freePort } from "../testing/child-agent.ts";
import { Pipeline, sleep, waitFor, waitForDrain } from "../testing/pipeline.ts";

const between = (minMs: number, maxMs: number) => sleep(minMs + Math.random() * (maxMs - minMs));

describe("crash: kill -9 of the agent process at random moments, the server restarting too", () => {
  let p: Pipeline;
  beforeAll(async () => {
    p = await Pipeline.start({ pollIntervalMs: 100 });
  });
  afterAll(async () => p.stop());

  it("loses nothing and stores nothing twice", async (ctx) => {
    const dir = p.agentDir();
    const agent = new ChildAgent(p.agentConfig(dir, { local_api_port: await freePort() }));
    ctx.onTestFailed(async () => {
      // The agent's last words help more than a timeout; and no process outlives the test.
      console.log(agent.lines.slice(-30).join("\n"));
      if (agent.running) await agent.kill("SIGKILL");
    });
    const deployment = await p.deploy();
    p.moveWell(50);
    let agentId: string | undefined;
    let kills = 0;
    const kill9 = async () => {
      const exit = await agent.kill("SIGKILL");
      expect(exit.signal).toBe("SIGKILL");
      kills += 1;
      // Same identity after every crash: seqs continue, the server's dedupe key holds.
      const id = readAgentDb(dir).agentId;
      agentId ??= id;
      expect(id).toBe(agentId);
    };
    const startSynced = async () => {
      const before = await p.storedPoints();
      await agent.start();
      await waitFor("the restarted agent to sync", async () => (await p.storedPoints()) > before);
    };

    // Two crashes while syncing live.
    for (let i = 0; i < 2; i++) {
      await startSynced();
      if (i === 0) await p.waitDeployment(deployment.id);
      await between(100, 900);
      await kill9();
      if (i === 0) {
        // No DISCONNECT: the broker publishes the agent's last will, and health says offline.
        const { token } = await p.t.admin();
        await waitFor("health offline by last will", async () => {
          const res = await p.t.request<{ status: string }>(`/api/edge/agents/${p.projectId}/health`, {
            token,
          });
          return res.body.status === "offline";
        });
      }
    }
    // The server goes away mid-sync; the agent crashes twice while it is offline (one of them
    // with a merged batch open) and is running again when the server returns.
    await startSynced();
    await p.t.restart(async () => {
      await between(0, 400);
      await kill9();
      await agent.start();
      await waitFor("points buffered offline", async () => (await agent.status()).buffer.points > 20);
      await kill9();
      await agent.start();
      await between(300, 800);
    });
    // The last crash while the backlog drains.
    await waitFor("the agent to reconnect", async () => (await agent.status()).connected);
    await between(0, 500);
    await kill9();
    expect(kills).toBe(5);

    await startSynced();
    p.stopWell();
    const drained = await waitForDrain(() => agent.status().then((s) => s.buffer));
    expect((await agent.kill("SIGTERM")).code).toBe(0);

    const db = readAgentDb(dir);
    expect(db.outboxBatches).toBe(0);
    expect(db.storedPoints).toBe(drained.stored_points);
    expect(db.droppedBatches).toBe(0);
    // No loss and no duplicate: raw rows, rollups and billed usage all equal what the agent stored.
    expect(await p.storedPoints()).toBe(db.storedPoints);
    expect(await p.rollupPoints()).toBe(db.storedPoints);
    expect(await p.usagePoints()).toBe(db.storedPoints);
    // Each seq the agent ever assigned was committed once, with the points it held.
    const batches = await p.agentBatches(db.agentId);
    expect(batches.seqs).toEqual(seqRange(db.nextSeq - 1));
    expect(batches.points).toBe(db.storedPoints);
  });
});
