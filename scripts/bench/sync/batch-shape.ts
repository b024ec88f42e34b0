import type { BatchBody } from "../../../agent/store/outbox.ts";

/** The alias of tag `i`: the same in the fixtures (server variables), the loader and the backlog. */
export const tagAlias = (i: number) => `tag_${String(i).padStart(2, "0")}`;

/**
 * A batch in the shape an agent's outbox merges while offline: every series of the site (asset ×
 * tag) with a run of `steps` consecutive 1 Hz points from `fromTs`. Values move, as a real well's do.
 */
export function mergedBatch(
  assets: readonly string[],
  tags: number,
  fromTs: number,
  steps: number,
): BatchBody {
  const body: BatchBody = { series: [], alarms: [] };
  for (const [a, assetId] of assets.entries()) {
    for (let v = 0; v < tags; v++) {
      const points: [number, number][] = [];
      for (let k = 0; k < steps; k++) {
        const ts = fromTs + k * 1000;
        points.push([ts, Math.round((1000 + a * 10 + v + Math.sin(ts / 60_000 + v) * 50) * 1000) / 1000]);
      }
      body.series.push({ asset_id: assetId, variable: tagAlias(v), unit: "psi", points });
    }
  }
  return body;
}
