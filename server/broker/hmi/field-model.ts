import { and, asc, eq, inArray } from "drizzle-orm";
import type { DataType } from "../../../shared/field/data-types.ts";
import { slugify } from "../../../shared/field/slug.ts";
import { parseHealthReport } from "../../services/agents/health-report.ts";
import type { ServiceContext } from "../../services/context.ts";
import {
  alarms,
  assets,
  devices,
  projects,
  telemetrySeries,
  variables,
} from "../../store/sqlite/schema/index.ts";
import type { NodeInfo } from "./sparkplug/payloads.ts";

/** One enabled variable of an asset, as HMIs see it. */
export type VariableModel = {
  /** The variable's alias: the Sparkplug metric name and the reading's `variable`. */
  name: string;
  dataType: DataType;
  scaleFactor: number | null;
  unit: string | null;
  /** The newest committed reading, if any. */
  latest: { ts: number; value: number } | null;
};

/** One asset: a Sparkplug device and a UNS level. */
export type AssetModel = {
  assetId: string;
  /** The asset name's slug, unique within the project: Sparkplug device_id and UNS level. */
  slug: string;
  variables: VariableModel[];
  commLoss: boolean;
};

export type FieldModel = { assets: AssetModel[]; nodeInfo: NodeInfo };

/**
 * What the HMI namespaces publish for a project, read in one transaction: every asset with its
 * enabled variables (of enabled devices; an alias two devices of one asset share is one metric,
 * as it is one telemetry series), their newest values, the assets in comm_loss and the agent's
 * last heartbeat figures. Null when the project does not exist.
 */
export function loadFieldModel(ctx: ServiceContext, projectId: string): FieldModel | null {
  return ctx.db.transaction((tx) => {
    const project = tx
      .select({ report: projects.lastHealthReport })
      .from(projects)
      .where(eq(projects.id, projectId))
      .get();
    if (!project) return null;
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
            .where(and(inArray(devices.assetId, ids), eq(devices.enabled, true), eq(variables.enabled, true)))
            .orderBy(asc(devices.name), asc(devices.id), asc(variables.alias))
            .all();
    const latest = new Map<string, { ts: number; value: number }>();
    for (const s of tx
      .select({
        assetId: telemetrySeries.assetId,
        variable: telemetrySeries.variable,
        ts: telemetrySeries.lastTs,
        value: telemetrySeries.lastValue,
      })
      .from(telemetrySeries)
      .where(eq(telemetrySeries.projectId, projectId))
      .all()) {
      if (s.ts !== null && s.value !== null)
        latest.set(`${s.assetId}\u0000${s.variable}`, { ts: s.ts, value: s.value });
    }
    const silent = new Set(
      tx
        .select({ assetId: alarms.assetId })
        .from(alarms)
        .where(
          and(eq(alarms.projectId, projectId), eq(alarms.active, true), eq(alarms.alarmType, "comm_loss")),
        )
        .all()
        .map((r) => r.assetId),
    );
    const byAsset = new Map<string, VariableModel[]>(ids.map((id) => [id, []]));
    for (const v of variableRows) {
      const list = byAsset.get(v.assetId);
      if (!list || list.some((x) => x.name === v.alias)) continue;
      list.push({
        name: v.alias,
        dataType: v.dataType,
        scaleFactor: v.scaleFactor,
        unit: v.unit,
        latest: latest.get(`${v.assetId}\u0000${v.alias}`) ?? null,
      });
    }
    const used = new Set<string>();
    const report = parseHealthReport(project.report);
    return {
      assets: assetRows.map((a) => ({
        assetId: a.id,
        slug: uniqueSlug(slugify(a.name) || "asset", used),
        variables: byAsset.get(a.id) ?? [],
        commLoss: silent.has(a.id),
      })),
      nodeInfo: {
        agentVersion: report?.agent_version ?? null,
        configVersion: report?.config.version ?? null,
        bufferPoints: report?.buffer.points ?? null,
      },
    };
  });
}

/** `base`, or base-2, base-3, … when an older asset of the project already has it. */
function uniqueSlug(base: string, used: Set<string>): string {
  let slug = base;
  for (let n = 2; used.has(slug); n++) slug = `${base}-${n}`;
  used.add(slug);
  return slug;
}
