import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
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
});
