import { and, eq } from "drizzle-orm";
import type { Payload } from "../../../shared/mqtt/topics.ts";
import { agentBatches } from "../../db/schema/index.ts";
import type { ServiceContext } from "../context.ts";
import { telemetryService } from "../telemetry/service.ts";
import type { TelemetryItem } from "../telemetry/types.ts";
import { recordAgentAlarms } from "./agent-alarms.ts";

type Batch = Payload<"telemetry">;
type Ack = Payload<"ack">;

/**
 * A telemetry batch from an agent, through the same ingest service as HTTP. A batch already
 * committed under (agent, seq) is acknowledged as a duplicate and not stored again. The ack is
 * returned only after the commit, so the agent deletes nothing the server does not hold.
 * (Should the dedupe row be lost in a crash between the two commits, the resent points are
 * still stored once: raw rows are unique per series and millisecond, first write wins.)
 */
export async function receiveAgentBatch(ctx: ServiceContext, projectId: string, batch: Batch): Promise<Ack> {
  const seen = ctx.db
    .select({ points: agentBatches.points })
    .from(agentBatches)
    .where(
      and(
        eq(agentBatches.projectId, projectId),
        eq(agentBatches.agentId, batch.agent_id),
        eq(agentBatches.seq, batch.seq),
      ),
    )
    .get();
  if (seen) return { agent_id: batch.agent_id, seq: batch.seq, accepted: 0, duplicate: true };

  const telemetry = telemetryService(ctx);
  const foreign = new Set<string>();
  const items = new Map<
    string,
    TelemetryItem & { readings: { variable: string; value: number; unit?: string }[] }
  >();
  const itemFor = (assetId: string, ts: number) => {
    const key = `${assetId}|${ts}`;
    const existing = items.get(key);
    if (existing) return existing;
    const created = {
      assetId,
      projectId,
      ts,
      readings: [] as { variable: string; value: number; unit?: string }[],
    };
    items.set(key, created);
    return created;
  };
  for (const s of batch.series) {
    if (telemetry.projectOfAsset(s.asset_id) !== projectId) {
      foreign.add(s.asset_id);
      continue;
    }
    for (const [ts, value] of s.points) {
      itemFor(s.asset_id, ts).readings.push(
        s.unit ? { variable: s.variable, value, unit: s.unit } : { variable: s.variable, value },
      );
    }
  }
  const result = items.size > 0 ? await telemetry.write([...items.values()]) : { accepted: 0, duplicates: 0 };
  recordAgentAlarms(ctx, projectId, batch.alarms);
  const points = batch.series.reduce((n, s) => n + s.points.length, 0);
  ctx.db
    .insert(agentBatches)
    .values({ projectId, agentId: batch.agent_id, seq: batch.seq, points, receivedAt: ctx.clock.now() })
    .onConflictDoNothing()
    .run();
  const ack: Ack = { agent_id: batch.agent_id, seq: batch.seq, accepted: result.accepted, duplicate: false };
  if (foreign.size > 0) {
    // Acknowledged anyway: these points can never be stored (asset deleted or not in this project).
    ack.error = `points for ${foreign.size} asset(s) not in this project were discarded: ${[...foreign].slice(0, 5).join(", ")}`;
    ctx.logger.warn("agent batch had points for unknown assets", {
      project_id: projectId,
      assets: [...foreign].slice(0, 5),
    });
  }
  return ack;
}
