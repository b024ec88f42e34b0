import type { Alarm } from "../api/types.ts";
import { qualityOf } from "../live/quality.ts";

/** What the overview says of an asset at a glance. */
export type AssetState = "alarm" | "reading" | "stale" | "no_data";

/**
 * In alarm while one of its alarms is active (not merely unacknowledged); otherwise its newest
 * reading of any variable judged as the live table judges a value (live/quality.ts): stale after
 * three of its shortest poll intervals (at least a minute), or 15 minutes when nothing on it is
 * polled (values sent through the API).
 */
export function assetState(
  asset: { id: string; pollMs: number | null; lastTs: number | null },
  alarms: readonly Pick<Alarm, "asset_id" | "active">[],
  now: number,
): AssetState {
  if (alarms.some((a) => a.active && a.asset_id === asset.id)) return "alarm";
  const quality = qualityOf({
    enabled: true,
    deviceState: null,
    pollMs: asset.pollMs,
    ageMs: asset.lastTs === null ? null : now - asset.lastTs,
  });
  return quality === "good" ? "reading" : quality === "stale" ? "stale" : "no_data";
}
