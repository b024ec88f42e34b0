import { and, asc, eq, inArray, sql } from "drizzle-orm";
import type { HmiFieldModelRows, HmiStore } from "../ports/hmi-store.ts";
import {
  alarms,
  assets,
  devices,
  projects,
  sparkplugNodes,
  telemetrySeries,
  variables,
} from "./schema/index.ts";
import type { PgExecutor, PgSession } from "./session.ts";

async function fieldModelIn(tx: PgExecutor, projectId: string): Promise<HmiFieldModelRows | undefined> {
  const [project] = await tx
    .select({ report: projects.lastHealthReport })
    .from(projects)
    .where(eq(projects.id, projectId))
    .limit(1);
  if (!project) return undefined;
  const assetRows = await tx
    .select({ id: assets.id, name: assets.name })
    .from(assets)
    .where(eq(assets.projectId, projectId))
    .orderBy(asc(assets.createdAt), asc(assets.id));
  const ids = assetRows.map((a) => a.id);
  const variableRows =
    ids.length === 0
      ? []
      : await tx
          .select({
            assetId: devices.assetId,
            alias: variables.alias,
            dataType: variables.dataType,
            scaleFactor: variables.scaleFactor,
            unit: variables.unit,
          })
          .from(variables)
          .innerJoin(devices, eq(devices.id, variables.deviceId))
          .where(and(inArray(devices.assetId, ids), eq(devices.enabled, true), eq(variables.enabled, true)))
          .orderBy(asc(devices.name), asc(devices.id), asc(variables.alias));
  const series = await tx
    .select({
      assetId: telemetrySeries.assetId,
      variable: telemetrySeries.variable,
      ts: telemetrySeries.lastTs,
      value: telemetrySeries.lastValue,
    })
    .from(telemetrySeries)
    .where(eq(telemetrySeries.projectId, projectId));
  const commLoss = await tx
    .select({ assetId: alarms.assetId })
    .from(alarms)
    .where(and(eq(alarms.projectId, projectId), eq(alarms.active, true), eq(alarms.alarmType, "comm_loss")));
  return {
    healthReport: project.report,
    assets: assetRows,
    variables: variableRows,
    latest: series.flatMap((s) =>
      s.ts === null || s.value === null
        ? []
        : [{ assetId: s.assetId, variable: s.variable, ts: s.ts, value: s.value }],
    ),
    commLossAssetIds: commLoss.flatMap((r) => (r.assetId === null ? [] : [r.assetId])),
  };
}

export class PostgresHmiStore implements HmiStore {
  readonly #s: PgSession;

  constructor(session: PgSession) {
    this.#s = session;
  }

  fieldModel(projectId: string) {
    const executor = this.#s.executor();
    // One snapshot for all five reads: a read-only REPEATABLE READ transaction of its own (under
    // READ COMMITTED each statement would see the commits made since the one before it). Inside
    // a store transaction the reads join it.
    if (this.#s.inTransaction()) return fieldModelIn(executor, projectId);
    return executor.transaction((tx) => fieldModelIn(tx, projectId), {
      isolationLevel: "repeatable read",
      accessMode: "read only",
    });
  }

  async nextBdSeq(projectId: string) {
    // One statement: concurrent callers queue on the row, each gets the next number.
    const [row] = await this.#s
      .executor()
      .insert(sparkplugNodes)
      .values({ projectId, bdSeq: 0 })
      .onConflictDoUpdate({
        target: sparkplugNodes.projectId,
        set: { bdSeq: sql`(${sparkplugNodes.bdSeq} + 1) % 256` },
      })
      .returning({ bdSeq: sparkplugNodes.bdSeq });
    if (!row) throw new Error("INSERT … RETURNING returned no sparkplug_nodes row");
    return row.bdSeq;
  }
}
