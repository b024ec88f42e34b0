import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterEach, describe, expect, it } from "vitest";
import { AgentStore } from "./agent-store.ts";
import type { DropNotice } from "./outbox.ts";

const ASSET = "7b0b5a7e-1111-4111-8111-111111111111";

function series(variable: string, from: number, n: number) {
  return {
    asset_id: ASSET,
    variable,
    points: Array.from({ length: n }, (_, i) => [from + i, i] as [number, number]),
  };
}

describe("agent outbox (real node:sqlite file)", () => {
  const dirs: string[] = [];
  const open = (maxBytes = 1 << 30) => {
    const dir = mkdtempSync(join(tmpdir(), "caudal-agent-"));
    dirs.push(dir);
    const drops: DropNotice[] = [];
    const store = new AgentStore(dir, { maxBytes, onDrop: (d) => drops.push(d) });
    store.open();
    return { store, dir, drops };
  };
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it("assigns increasing seqs that survive a reopen, and never reuses one after acks", () => {
    const { store, dir } = open();
    const a = store.outbox.append({ series: [series("p", 0, 3)], alarms: [] }, 1, false);
    const b = store.outbox.append({ series: [series("p", 3, 3)], alarms: [] }, 2, false);
    expect([a, b]).toEqual([1, 2]);
    store.outbox.ack(a);
    store.outbox.ack(b);
    const agentId = store.agentId;
    store.close();
    const again = new AgentStore(dir, { maxBytes: 1 << 30, onDrop: () => {} });
    again.open();
    expect(again.agentId).toBe(agentId);
    expect(again.outbox.append({ series: [series("p", 6, 1)], alarms: [] }, 3, false)).toBe(3);
    again.close();
  });

  it("merges points into the open batch while offline, up to the batch size, and not after seal", () => {
    const { store } = open();
    const s1 = store.outbox.append({ series: [series("p", 0, 10)], alarms: [] }, 1, true);
    const s2 = store.outbox.append({ series: [series("p", 10, 10), series("t", 0, 5)], alarms: [] }, 2, true);
    expect(s2).toBe(s1);
    const merged = store.outbox.get(s1);
    expect(merged?.points).toBe(25);
    expect(merged?.body.series.find((s) => s.variable === "p")?.points).toHaveLength(20);
    store.outbox.seal(s1);
    expect(store.outbox.append({ series: [series("p", 20, 1)], alarms: [] }, 3, true)).toBe(s1 + 1);
    store.close();
  });

  it("drops the oldest batches when over the bound, counting and reporting each", () => {
    const { store, drops } = open(1_500);
    for (let i = 0; i < 20; i++)
      store.outbox.append({ series: [series("p", i * 10, 10)], alarms: [] }, i, false);
    const stats = store.outbox.stats();
    expect(stats.bytes).toBeLessThanOrEqual(1_500);
    expect(drops.length).toBeGreaterThan(0);
    expect(drops[0]?.seq).toBe(1);
    expect(stats.droppedBatches).toBe(drops.length);
    expect(stats.droppedPoints).toBe(drops.length * 10);
    // What is left is the newest, contiguous.
    const left = store.outbox.seqsAfter(0, 100);
    expect(left.at(-1)).toBe(20);
    expect(left[0]).toBe(drops.length + 1);
    store.close();
  });

  it("keeps the bound while merging offline: an open batch takes at most a quarter of it", () => {
    const { store, drops } = open(4_000);
    for (let i = 0; i < 100; i++)
      store.outbox.append({ series: [series("p", i * 10, 10)], alarms: [] }, i, true);
    const stats = store.outbox.stats();
    expect(stats.bytes).toBeLessThanOrEqual(4_000);
    expect(drops.length).toBeGreaterThan(0);
    for (const seq of store.outbox.seqsAfter(0, 100)) {
      const batch = store.outbox.get(seq);
      expect(Buffer.byteLength(JSON.stringify(batch?.body))).toBeLessThanOrEqual(1_000);
      // Still merged: several appends per batch, not one batch per append.
      expect(batch?.points).toBeGreaterThan(10);
    }
    expect(stats.droppedPoints + stats.points).toBe(1_000);
    store.close();
  });

  it("leaves only the newest batch open, so sending an older one rewrites nothing", () => {
    const { store, dir } = open(4_000);
    for (let i = 0; i < 30; i++)
      store.outbox.append({ series: [series("p", i * 10, 10)], alarms: [] }, i, true);
    const openSeqs = () => {
      const db = new DatabaseSync(join(dir, "agent.db"), { readOnly: true });
      try {
        return (db.prepare("SELECT seq FROM outbox WHERE open = 1").all() as { seq: number }[]).map(
          (r) => r.seq,
        );
      } finally {
        db.close();
      }
    };
    const seqs = store.outbox.seqsAfter(0, 100);
    expect(seqs.length).toBeGreaterThan(2);
    expect(openSeqs()).toEqual([seqs.at(-1)]);
    // A live batch (appended while connected) supersedes it: still one open batch, the newest.
    const live = store.outbox.append({ series: [series("p", 1_000, 1)], alarms: [] }, 99, false);
    expect(openSeqs()).toEqual([live]);
    // An older batch, sent (sealed) while the newest is still open: offline points go on into the
    // newest, never into a batch the server may already hold.
    store.outbox.seal(seqs[0] ?? 0);
    expect(store.outbox.append({ series: [series("p", 2_000, 1)], alarms: [] }, 100, true)).toBe(live);
    store.close();
  });

  it("deletes acknowledged batches together, counting only those still queued", () => {
    const { store } = open();
    const seqs = [1, 2, 3, 4].map((i) =>
      store.outbox.append({ series: [series("p", i * 10, 10)], alarms: [] }, i, false),
    );
    const before = store.outbox.stats();
    expect(store.outbox.ackMany([seqs[0] ?? 0, seqs[2] ?? 0, 999])).toBe(2);
    expect(store.outbox.ackMany([seqs[0] ?? 0])).toBe(0);
    expect(store.outbox.ack(seqs[1] ?? 0)).toBe(true);
    expect(store.outbox.ack(seqs[1] ?? 0)).toBe(false);
    const after = store.outbox.stats();
    expect(store.outbox.seqsAfter(0, 10)).toEqual([seqs[3]]);
    expect(after.points).toBe(10);
    expect(after.bytes).toBe(before.bytes / 4);
    store.close();
  });

  it("hands out a batch's stored JSON exactly as the batch decodes", () => {
    const { store } = open();
    const seq = store.outbox.append({ series: [series("p", 0, 3), series("t", 0, 2)], alarms: [] }, 1, true);
    const text = store.outbox.bodyText(seq);
    expect(text).toBe(JSON.stringify(store.outbox.get(seq)?.body));
    expect(store.outbox.bodyText(seq + 1)).toBeUndefined();
    store.close();
  });
});
