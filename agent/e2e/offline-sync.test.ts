import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readAgentDb, seqRange } from "../testing/agent-db.ts";
import { Pipeline, sleep, waitFor, waitForDrain } from "../testing/pipeline.ts";

describe("offline: the server stops and comes back on the same data dir and ports", () => {
  let p: Pipeline;
  beforeAll(async () => {
    p = await Pipeline.start({ pollIntervalMs: 100 });
  });
  afterAll(async () => p.stop());

  it("buffers while offline (merging into one open batch) and delivers every point exactly once", async () => {
    const dir = p.agentDir();
    const agent = p.newAgent(dir);
    await agent.start();
    try {
      await p.waitDeployment((await p.deploy()).id);
      p.moveWell(50);
      await waitFor("points on the server before the outage", async () => (await p.storedPoints()) >= 40);

      let offlinePoints = 0;
      await p.t.restart(async () => {
        await waitFor("the agent to see the outage", () => !agent.status().connected);
        const before = agent.status().buffer;
        await sleep(2_500);
        const after = agent.status().buffer;
        offlinePoints = after.stored_points - before.stored_points;
        // 4 tags every 100 ms for 2.5 s: ~100 points, all committed locally…
        expect(offlinePoints).toBeGreaterThanOrEqual(40);
        expect(after.points - before.points).toBe(offlinePoints);
        // …into the one batch left open (never sent), not one batch per poll.
        expect(after.batches - before.batches).toBeLessThanOrEqual(1);
        expect(agent.status().connected).toBe(false);
      });
      const atRestart = await p.storedPoints();
      await waitFor("the agent to reconnect", () => agent.status().connected);
      await waitFor(
        "the backlog on the server",
        async () => (await p.storedPoints()) >= atRestart + offlinePoints,
      );
      await sleep(500); // some live batches after the backlog
      p.stopWell();
      const drained = await waitForDrain(() => agent.status().buffer);

      const stored = drained.stored_points;
      const db = readAgentDb(dir);
      expect(db.storedPoints).toBe(stored);
      expect(db.droppedBatches).toBe(0);
      // Every point once: raw rows, rollup counts and billed usage all equal what the agent stored.
      expect(await p.storedPoints()).toBe(stored);
      expect(await p.rollupPoints()).toBe(stored);
      expect(await p.usagePoints()).toBe(stored);
      // Every seq the agent assigned was committed once by the server (seqs are never reused, so no
      // gaps), with the points the agent counted, and the agent deleted each one on its ack.
      const batches = await p.agentBatches(db.agentId);
      expect(batches.seqs).toEqual(seqRange(db.nextSeq - 1));
      expect(batches.points).toBe(stored);
      expect(agent.sync?.ackedBatches).toBe(db.nextSeq - 1);
      // After the first ack of each connection said so, batches went as binary frames; each JSON
      // first batch of a connection included, every point is stored once (above).
      expect(agent.sync?.framesSent).toBeGreaterThan(0);
      expect(agent.sync?.framesSent).toBeLessThan(db.nextSeq - 1);
    } finally {
      await agent.stop();
    }
  });
});
