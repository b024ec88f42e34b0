import { and, asc, eq, inArray } from "drizzle-orm";
import type { HmiStore } from "../ports/hmi-store.ts";
import {
  alarms,
  assets,
  devices,
  projects,
  sparkplugNodes,
  telemetrySeries,
  variables,
} from "./schema/index.ts";
import type { SqliteSession } from "./session.ts";

export class SqliteHmiStore implements HmiStore {
  readonly #s: SqliteSession;

  constructor(session: SqliteSession) {
    this.#s = session;
  }

  fieldModel(projectId: string) {
    return this.#s.gate.run(() =>
      this.#s.db.transaction((tx) => {
        const project = tx
          .select({ report: projects.lastHealthReport })
          .from(projects)
          .where(eq(projects.id, projectId))
          .get();
        if (!project) return undefined;
        const assetRows = tx
          .select({ id: assets.id, name: assets.name })
          .from(assets)
          .where(eq(assets.projectId, projectId))
          .orderBy(asc(assets.createdAt), asc(assets.id))
          .all();
        const ids = assetRows.map((a) => a.id);
        const variableRows =
          ids.length === 0
            ? []
            : tx
                .select({
                  assetId: devices.assetId,
                  alias: variables.alias,
                  dataType: variables.dataType,
                  scaleFactor: variables.scaleFactor,
                  unit: variables.unit,
                })
                .from(variables)
                .innerJoin(devices, eq(devices.id, variables.deviceId))
                .where(
                  and(inArray(devices.assetId, ids), eq(devices.enabled, true), eq(variables.enabled, true)),
                )
                .orderBy(asc(devices.name), asc(devices.id), asc(variables.alias))
                .all();
        const latest = tx
          .select({
            assetId: telemetrySeries.assetId,
            variable: telemetrySeries.variable,
            ts: telemetrySeries.lastTs,
            value: telemetrySeries.lastValue,
          })
          .from(telemetrySeries)
          .where(eq(telemetrySeries.projectId, projectId))
          .all()
          .flatMap((s) =>
            s.ts === null || s.value === null
              ? []
              : [{ assetId: s.assetId, variable: s.variable, ts: s.ts, value: s.value }],
          );
        const commLossAssetIds = tx
          .select({ assetId: alarms.assetId })
          .from(alarms)
          .where(
            and(eq(alarms.projectId, projectId), eq(alarms.active, true), eq(alarms.alarmType, "comm_loss")),
          )
          .all()
          .flatMap((r) => (r.assetId === null ? [] : [r.assetId]));
        return {
          healthReport: project.report,
          assets: assetRows,
          variables: variableRows,
          latest,
          commLossAssetIds,
        };
      }),
    );
  }

  nextBdSeq(projectId: string) {
    return this.#s.gate.run(() =>
      this.#s.db.transaction((tx) => {
        const row = tx
          .select({ bdSeq: sparkplugNodes.bdSeq })
          .from(sparkplugNodes)
          .where(eq(sparkplugNodes.projectId, projectId))
          .get();
        const bdSeq = row ? (row.bdSeq + 1) % 256 : 0;
        tx.insert(sparkplugNodes)
          .values({ projectId, bdSeq })
          .onConflictDoUpdate({ target: sparkplugNodes.projectId, set: { bdSeq } })
          .run();
        return bdSeq;
      }),
    );
  }
}
