import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";

export type AgentDbState = {
  agentId: string;
  /** The next seq the outbox would assign: seqs 1..nextSeq-1 were assigned. */
  nextSeq: number;
  storedPoints: number;
  droppedBatches: number;
  droppedPoints: number;
  outboxBatches: number;
  outboxPoints: number;
  /** Seqs still queued (unacknowledged), ascending. */
  outboxSeqs: number[];
  appliedVersion: number | null;
};

/**
 * Reads an agent's durable state straight from DATA_DIR/agent.db (read-only), so a test can judge
 * an agent that was killed or stopped, with no help from the agent process.
 */
export function readAgentDb(dataDir: string): AgentDbState {
  const db = new DatabaseSync(join(dataDir, "agent.db"), { readOnly: true });
  try {
    const meta = (key: string) =>
      (db.prepare("SELECT value FROM meta WHERE key = ?").get(key) as { value: string } | undefined)?.value;
    const counter = (name: string) =>
      Number(
        (db.prepare("SELECT value FROM counters WHERE name = ?").get(name) as { value: number } | undefined)
          ?.value ?? 0,
      );
    const outbox = db
      .prepare("SELECT COUNT(*) AS batches, COALESCE(SUM(points), 0) AS points FROM outbox")
      .get() as { batches: number; points: number };
    const applied = db.prepare("SELECT version FROM applied_config WHERE id = 1").get() as
      | { version: number }
      | undefined;
    const agentId = meta("agent_id");
    if (!agentId) throw new Error(`${dataDir}: agent.db has no agent_id`);
    return {
      agentId,
      nextSeq: Number(meta("next_seq") ?? 1),
      storedPoints: counter("stored_points"),
      droppedBatches: counter("dropped_batches"),
      droppedPoints: counter("dropped_points"),
      outboxBatches: Number(outbox.batches),
      outboxPoints: Number(outbox.points),
      outboxSeqs: (db.prepare("SELECT seq FROM outbox ORDER BY seq").all() as { seq: number }[]).map((r) =>
        Number(r.seq),
      ),
      appliedVersion: applied ? Number(applied.version) : null,
    };
  } finally {
    db.close();
  }
}

/** 1..n */
export function seqRange(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i + 1);
}
