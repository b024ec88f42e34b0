import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AgentLog } from "../agent-log.ts";
import { readAgentDb, seqRange } from "../testing/agent-db.ts";
import { Pipeline, waitFor, waitForDrain } from "../testing/pipeline.ts";

const BUFFER_MB = 0.004; // 4,194 bytes: a few seconds of the well's four tags at 100 ms

describe("buffer full: buffer_max_mb bounds the outbox while the server is unreachable", () => {
  let p: Pipeline;
  beforeAll(async () => {
    p = await Pipeline.start({ pollIntervalMs: 100 });
  });
  afterAll(async () => p.stop());

  it("drops the oldest batches, counts and logs each drop, and delivers what remains", async () => {
    const lines: string[] = [];
    const dir = p.agentDir();
    const agent = p.newAgent(dir, new AgentLog({ write: (l) => lines.push(l) }), {
      buffer_max_mb: BUFFER_MB,
    });
    // One warn line per dropped batch, naming its seq and points.
    const drops = () =>
      lines
        .map((l) => JSON.parse(l) as { level: string; category: string; message: string })
        .filter((e) => e.category === "buffer")
        .map((e) => {
          expect(e.level).toBe("warn");
          const m = /^buffer full \(.+ MB\): dropped oldest batch (\d+) with (\d+) points$/.exec(e.message);
          expect(m, e.message).not.toBeNull();
          return { seq: Number(m?.[1]), points: Number(m?.[2]) };
        });
    await agent.start();
    try {
      await p.waitDeployment((await p.deploy()).id);
      p.moveWell(50);
      await waitFor("points on the server", async () => (await p.storedPoints()) >= 8);

      let sentBefore = 0;
      let droppedOffline: { seq: number; points: number }[] = [];
      await p.t.restart(async () => {
        await waitFor("the agent to see the outage", () => !agent.status().connected);
        sentBefore = readAgentDb(dir).nextSeq - 1;
        // Batches made during the outage (never sent) reach the front of the queue and go.
        droppedOffline = await waitFor(
          "three batches made offline to be dropped",
          () => drops().filter((d) => d.seq > sentBefore).length >= 3 && drops(),
          20_000,
        );
        const buffer = agent.status().buffer;
        // The bound holds, the open batch included.
        expect(buffer.bytes).toBeLessThanOrEqual(BUFFER_MB * 1024 * 1024);
        expect(buffer.dropped_batches).toBe(droppedOffline.length);
        expect(buffer.dropped_points).toBe(droppedOffline.reduce((n, d) => n + d.points, 0));
        const metrics = await fetch(`http://127.0.0.1:${agent.localApiPort}/metrics`).then((r) => r.text());
        const counter = /^caudal_agent_buffer_dropped_batches_total (\d+)$/m.exec(metrics)?.[1];
        // (Still offline: more drops may come while the requests are answered.)
        expect(Number(counter)).toBeGreaterThanOrEqual(droppedOffline.length);
        const local = await fetch(`http://127.0.0.1:${agent.localApiPort}/status`).then(
          (r) => r.json() as Promise<{ buffer: { dropped_batches: number } }>,
        );
        expect(local.buffer.dropped_batches).toBeGreaterThanOrEqual(Number(counter));
      });

      await waitFor("the agent to reconnect", () => agent.status().connected);
      p.stopWell();
      const drained = await waitForDrain(() => agent.status().buffer);
      const db = readAgentDb(dir);
      const all = drops();
      expect(all.length).toBe(db.droppedBatches);
      expect(all.reduce((n, d) => n + d.points, 0)).toBe(db.droppedPoints);

      const batches = await p.agentBatches(db.agentId);
      const onServer = new Set(batches.seqs);
      // Dropped while offline and never sent: gone for good.
      for (const d of droppedOffline.filter((d) => d.seq > sentBefore))
        expect(onServer.has(d.seq)).toBe(false);
      // A dropped batch may still be on the server when it was in flight (sent, ack not yet back):
      // the agent cannot know, so it counts it as dropped. Every batch not dropped arrived.
      const droppedButDelivered = all.filter((d) => onServer.has(d.seq));
      expect(batches.seqs).toEqual(
        seqRange(db.nextSeq - 1).filter((s) => onServer.has(s) || !all.some((d) => d.seq === s)),
      );
      // Once each: raw rows and rollups equal what the agent stored, minus what it dropped.
      const delivered =
        drained.stored_points - db.droppedPoints + droppedButDelivered.reduce((n, d) => n + d.points, 0);
      expect(await p.storedPoints()).toBe(delivered);
      expect(await p.rollupPoints()).toBe(delivered);
      expect(batches.points).toBe(delivered);
    } finally {
      await agent.stop();
    }
  });
});
