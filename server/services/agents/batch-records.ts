import type { ServiceContext } from "../context.ts";

/** How long the record of an agent's batch (project, agent, seq) is kept after it arrived. */
export const BATCH_RECORD_HOURS = 24;
/** Records deleted per statement; the event loop turns between statements. */
const CHUNK = 5_000;

/**
 * Scheduled: deletes the records of agent batches whose last batch arrived more than
 * BATCH_RECORD_HOURS ago (a record may be a run of batches: store/sqlite/batch-ledger.ts).
 *
 * A record only lets a batch sent again be answered as a duplicate (receive-batch.ts), and an
 * agent sends a batch again within minutes of losing its ack, or when it reconnects. A batch sent
 * later than that is still stored exactly once (AgentStore.deleteBatchRecordsBefore says why); its
 * ack says accepted 0 instead of duplicate. Kept for good, a record per batch grew without bound:
 * about 190 bytes a batch (measured on SQLite, which now keeps runs; PostgreSQL still writes one
 * row a batch), 19 bytes a reading for agents sending 10 readings a batch.
 */
export async function pruneBatchRecords(ctx: ServiceContext): Promise<{ deleted: number }> {
  const before = new Date(ctx.clock.now().getTime() - BATCH_RECORD_HOURS * 3_600_000);
  let deleted = 0;
  for (;;) {
    const n = await ctx.store.agents.deleteBatchRecordsBefore(before, CHUNK);
    deleted += n;
    if (n < CHUNK) return { deleted };
    await new Promise((resolve) => setImmediate(resolve));
  }
}
