import type { Payload } from "../../../shared/mqtt/topics.ts";
import type { BatchSeries } from "../../../shared/telemetry/batch.ts";
import type { ServiceContext } from "../context.ts";
import type { TelemetryService } from "../telemetry/service.ts";
import { publishAgentAlarms, type StoredAgentAlarms, storeAgentAlarms } from "./agent-alarms.ts";

type Batch = Payload<"telemetry">;
type Ack = Payload<"ack">;

const NO_ALARMS: StoredAgentAlarms = { raised: [], cleared: [] };

/**
 * A telemetry batch from an agent, through the same ingest service as HTTP. Its series are already
 * the batch shape: only the project is added, and the series of assets outside the project are
 * left out. The batch is one commit: its points, its alarm transitions and its dedupe record
 * (agent, seq) are stored together or not at all, so a batch already committed is recognised and
 * acknowledged as a duplicate, and one that failed leaves nothing behind and is stored once when
 * resent. The ack is returned only after the commit, so the agent deletes nothing the server does
 * not hold.
 */
export async function receiveAgentBatch(
  ctx: ServiceContext,
  telemetry: TelemetryService,
  projectId: string,
  batch: Batch,
): Promise<Ack> {
  let foreign: Set<string> | undefined;
  const series: BatchSeries[] = [];
  let points = 0;
  let ownAsset: string | undefined;
  for (const s of batch.series) {
    points += s.points.length;
    if (s.asset_id !== ownAsset) {
      if ((await telemetry.projectOfAsset(s.asset_id)) !== projectId) {
        foreign ??= new Set();
        foreign.add(s.asset_id);
        continue;
      }
      ownAsset = s.asset_id;
    }
    series.push(
      s.unit
        ? { projectId, assetId: s.asset_id, variable: s.variable, unit: s.unit, points: s.points }
        : { projectId, assetId: s.asset_id, variable: s.variable, points: s.points },
    );
  }
  let duplicate = false;
  let alarms: StoredAgentAlarms = NO_ALARMS;
  const receivedAt = ctx.clock.now();
  // source "agent": the agent evaluated its rules at the edge; the server must not raise them again.
  const result = await telemetry.write(
    { source: "agent", series, sequence: { stream: `${projectId}/${batch.agent_id}`, seq: batch.seq } },
    {
      claim: async (tx) => {
        duplicate = !(await tx.agents.recordBatch(projectId, batch.agent_id, batch.seq, points, receivedAt));
        return !duplicate;
      },
      // Most batches carry no transitions: no trip through the alarm ports for them.
      ...(batch.alarms.length > 0 && {
        complete: async (tx) => {
          alarms = await storeAgentAlarms(tx, receivedAt, projectId, batch.alarms);
        },
      }),
    },
  );
  if (duplicate) return { agent_id: batch.agent_id, seq: batch.seq, accepted: 0, duplicate: true };
  publishAgentAlarms(ctx, alarms);
  const ack: Ack = { agent_id: batch.agent_id, seq: batch.seq, accepted: result.accepted, duplicate: false };
  if (foreign) {
    // Acknowledged anyway: these points can never be stored (asset deleted or not in this project).
    ack.error = `points for ${foreign.size} asset(s) not in this project were discarded: ${[...foreign].slice(0, 5).join(", ")}`;
    ctx.logger.warn("agent batch had points for unknown assets", {
      project_id: projectId,
      assets: [...foreign].slice(0, 5),
    });
  }
  return ack;
}
