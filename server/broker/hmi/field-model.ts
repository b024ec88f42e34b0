import type { DataType } from "../../../shared/field/data-types.ts";
import { slugify } from "../../../shared/field/slug.ts";
import { parseHealthReport } from "../../services/agents/health-report.ts";
import type { HmiStore } from "../../store/ports/hmi-store.ts";
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
 * What the HMI namespaces publish for a project, read in one snapshot: every asset with its
 * enabled variables (of enabled devices; an alias two devices of one asset share is one metric,
 * as it is one telemetry series), their newest values, the assets in comm_loss and the agent's
 * last heartbeat figures. Null when the project does not exist.
 */
export async function loadFieldModel(hmi: HmiStore, projectId: string): Promise<FieldModel | null> {
  const rows = await hmi.fieldModel(projectId);
  if (!rows) return null;
  const latest = new Map(
    rows.latest.map((s) => [`${s.assetId}\u0000${s.variable}`, { ts: s.ts, value: s.value }]),
  );
  const silent = new Set(rows.commLossAssetIds);
  const byAsset = new Map<string, VariableModel[]>(rows.assets.map((a) => [a.id, []]));
  for (const v of rows.variables) {
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
  const report = parseHealthReport(rows.healthReport);
  return {
    assets: rows.assets.map((a) => ({
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
}

/** `base`, or base-2, base-3, … when an older asset of the project already has it. */
function uniqueSlug(base: string, used: Set<string>): string {
  let slug = base;
  for (let n = 2; used.has(slug); n++) slug = `${base}-${n}`;
  used.add(slug);
  return slug;
}
